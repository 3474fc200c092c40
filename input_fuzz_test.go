package mailauth

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

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
			if !errors.As(err, &ie) || ie.Field != FieldDomain || ie.Rule == "" {
				t.Fatalf("NormalizeDomain(%q) error %v (%T) is not a domain *InputError", input, err, err)
			}
			return
		}
		checkDomainShape(t, input, d)
		again, err := NormalizeDomain(d.ASCII)
		// A normalized name is a bare name: it normalizes to itself, and
		// no www. is dropped from it twice.
		if err != nil || again.ASCII != d.ASCII || again.Unicode != d.Unicode || again.WWWDropped {
			t.Fatalf("NormalizeDomain(%q) = %+v; again on ASCII = %+v, %v", input, d, again, err)
		}
		fromUnicode, err := NormalizeDomain(d.Unicode)
		if err != nil || fromUnicode.ASCII != d.ASCII {
			t.Fatalf("NormalizeDomain(%q) = %+v; again on Unicode = %+v, %v", input, d, fromUnicode, err)
		}
	})
}

func checkDomainShape(t *testing.T, input string, d Domain) {
	t.Helper()
	a := d.ASCII
	if n := len(a); n < MinDomainLen || n > MaxDomainLen {
		t.Fatalf("NormalizeDomain(%q).ASCII = %q: %d octets", input, a, n)
	}
	for i := 0; i < len(a); i++ {
		if c := a[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			t.Fatalf("NormalizeDomain(%q).ASCII = %q: byte %q is not lower-case LDH", input, a, c)
		}
	}
	labels := strings.Split(a, ".")
	if len(labels) < 2 {
		t.Fatalf("NormalizeDomain(%q).ASCII = %q: single label", input, a)
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > maxLabelLen {
			t.Fatalf("NormalizeDomain(%q).ASCII = %q: label of %d octets", input, a, len(l))
		}
	}
	if d.Unicode == "" {
		t.Fatalf("NormalizeDomain(%q).Unicode is empty", input)
	}
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
			if !errors.As(err, &ie) || ie.Field != FieldSendingIP || ie.Rule == "" {
				t.Fatalf("NormalizeSendingIP(%q) error %v (%T) is not a sendingIp *InputError", input, err, err)
			}
			return
		}
		if !ipclass.IsPublic(addr) || addr.Is4In6() || addr.Zone() != "" {
			t.Fatalf("NormalizeSendingIP(%q) = %v: not a public unmapped address", input, addr)
		}
		back, err := netip.ParseAddr(addr.String())
		if err != nil || back != addr {
			t.Fatalf("NormalizeSendingIP(%q) = %v; String re-parses to %v, %v", input, addr, back, err)
		}
		again, err := member.Normalize(addr.String())
		if err != nil || again != addr {
			t.Fatalf("NormalizeSendingIP(%q) = %v; again = %v, %v", input, addr, again, err)
		}
	})
}
