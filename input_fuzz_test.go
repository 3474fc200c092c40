package mailauth

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/ipclass"
)

// FuzzNormalizeDomain checks that NormalizeDomain never panics, that an
// error is always an *InputError for "domain", and that a result is a
// fixed point: lower-case A-labels, 3..253 octets, at least two labels of
// 1..63 octets, and normalizing ASCII (or Unicode) again gives the same
// ASCII.
func FuzzNormalizeDomain(f *testing.F) {
	for _, tc := range domainCases {
		f.Add(tc.input)
	}
	f.Fuzz(func(t *testing.T, input string) {
		d, err := NormalizeDomain(input)
		if err != nil {
			var ie *InputError
			msg := "NormalizeDomain(%q) error %v (%T) is not a domain *InputError"
			require.ErrorAs(t, err, &ie, msg, input, err, err)
			require.Equal(t, FieldDomain, ie.Field, msg, input, err, err)
			require.NotEmpty(t, ie.Rule, msg, input, err, err)
			return
		}
		checkDomainShape(t, input, d)
		again, err := NormalizeDomain(d.ASCII)
		// A normalized name is a bare name: it normalizes to itself, and
		// no www. is dropped from it twice.
		msg := "NormalizeDomain(%q) = %+v; again on ASCII = %+v, %v"
		require.NoError(t, err, msg, input, d, again, err)
		require.Equal(t, d.ASCII, again.ASCII, msg, input, d, again, err)
		require.Equal(t, d.Unicode, again.Unicode, msg, input, d, again, err)
		require.False(t, again.WWWDropped, msg, input, d, again, err)
		fromUnicode, err := NormalizeDomain(d.Unicode)
		msg = "NormalizeDomain(%q) = %+v; again on Unicode = %+v, %v"
		require.NoError(t, err, msg, input, d, fromUnicode, err)
		require.Equal(t, d.ASCII, fromUnicode.ASCII, msg, input, d, fromUnicode, err)
	})
}

func checkDomainShape(t *testing.T, input string, d Domain) {
	t.Helper()
	a := d.ASCII
	n := len(a)
	require.GreaterOrEqual(t, n, MinDomainLen, "NormalizeDomain(%q).ASCII = %q: %d octets", input, a, n)
	require.LessOrEqual(t, n, MaxDomainLen, "NormalizeDomain(%q).ASCII = %q: %d octets", input, a, n)
	for i := 0; i < len(a); i++ {
		c := a[i]
		require.True(t, c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.', "NormalizeDomain(%q).ASCII = %q: byte %q is not lower-case LDH", input, a, c)
	}
	labels := strings.Split(a, ".")
	require.GreaterOrEqual(t, len(labels), 2, "NormalizeDomain(%q).ASCII = %q: single label", input, a)
	for _, l := range labels {
		require.NotEmpty(t, l, "NormalizeDomain(%q).ASCII = %q: label of %d octets", input, a, len(l))
		require.LessOrEqual(t, len(l), maxLabelLen, "NormalizeDomain(%q).ASCII = %q: label of %d octets", input, a, len(l))
	}
	require.NotEmpty(t, d.Unicode, "NormalizeDomain(%q).Unicode is empty", input)
}

// FuzzNormalizeSendingIP checks that NormalizeSendingIP never panics,
// that an error is always an *InputError for "sendingIp", and that a
// returned address is public, unmapped, zone-free, and that its String
// parses back to itself and normalizes to itself.
func FuzzNormalizeSendingIP(f *testing.F) {
	for _, tc := range ipCases {
		f.Add(tc.input, tc.maxLen == MaxSendingIPLenPtr)
	}
	f.Fuzz(func(t *testing.T, input string, ptr bool) {
		member := ScanSendingIP
		if ptr {
			member = PTRCheckSendingIP
		}
		addr, err := member.Normalize(input)
		if err != nil {
			var ie *InputError
			msg := "NormalizeSendingIP(%q) error %v (%T) is not a sendingIp *InputError"
			require.ErrorAs(t, err, &ie, msg, input, err, err)
			require.Equal(t, FieldSendingIP, ie.Field, msg, input, err, err)
			require.NotEmpty(t, ie.Rule, msg, input, err, err)
			return
		}
		msg := "NormalizeSendingIP(%q) = %v: not a public unmapped address"
		require.True(t, ipclass.IsPublic(addr), msg, input, addr)
		require.False(t, addr.Is4In6(), msg, input, addr)
		require.Empty(t, addr.Zone(), msg, input, addr)
		back, err := netip.ParseAddr(addr.String())
		msg = "NormalizeSendingIP(%q) = %v; String re-parses to %v, %v"
		require.NoError(t, err, msg, input, addr, back, err)
		require.Equal(t, addr, back, msg, input, addr, back, err)
		again, err := member.Normalize(addr.String())
		msg = "NormalizeSendingIP(%q) = %v; again = %v, %v"
		require.NoError(t, err, msg, input, addr, again, err)
		require.Equal(t, addr, again, msg, input, addr, again, err)
	})
}
