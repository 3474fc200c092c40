package mailauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

// spfIPZone: one policy per SPF result for the sending IP 8.8.8.8. The
// addresses are only compared with the sending IP, never connected to.
const spfIPZone = `$ORIGIN example.com.
@        SOA ns.example.com. hostmaster.example.com. 1 3600 600 86400 300
pass     TXT "v=spf1 ip4:8.8.8.0/24 -all"
fail     TXT "v=spf1 ip4:1.1.1.1 -all"
soft     TXT "v=spf1 ip4:1.1.1.1 ~all"
neutral  TXT "v=spf1 ip4:1.1.1.1 ?all"
none     A 8.8.4.4
perm     TXT "v=spf1 include:nothing.example.com -all"
temp     TXT "v=spf1 a:flaky.example.com -all"
flaky    A 1.1.1.1
`

// TestSPFSendingIP: with a sending IP, the SPF details end with the
// sentence for the evaluation's result; the status, severity and summary
// are those of the same scan without an IP.
func TestSPFSendingIP(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, spfIPZone)
	scan := func(domain, ip string) CheckSummary {
		t.Helper()
		mem := dnstest.NewResolver(z)
		mem.SetFault("flaky.example.com", resolver.TypeA, dnstest.ServFail)
		s := New(Config{Resolver: mem, Now: func() time.Time { return fixedNow }})
		sum, err := s.Scan(context.Background(), ScanRequest{Domain: domain, SendingIP: ip})
		require.NoError(t, err, "Scan(%s, %s)", domain, ip)
		return sum.Checks[1]
	}
	for _, tc := range []struct {
		domain string
		want   spf.Verdict
	}{
		{"pass.example.com", spf.VerdictPass},
		{"fail.example.com", spf.VerdictFail},
		{"soft.example.com", spf.VerdictSoftFail},
		{"neutral.example.com", spf.VerdictNeutral},
		{"none.example.com", spf.VerdictNone},
		{"perm.example.com", spf.VerdictPermError},
		{"temp.example.com", spf.VerdictTempError},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			t.Parallel()
			with, without := scan(tc.domain, "8.8.8.8"), scan(tc.domain, "")
			require.Equal(t, CheckSPF, with.ID, "check 1 is %s", with.ID)
			want := spfIPTexts[tc.want].format()
			assert.True(t, strings.HasSuffix(with.Details.EN, want.EN), "details %q do not end with %q", with.Details.EN, want.EN)
			assert.True(t, strings.HasSuffix(with.Details.ZH, want.ZH), "details %q do not end with %q", with.Details.EN, want.EN)
			for v, other := range spfIPTexts {
				if v != tc.want {
					assert.NotContains(t, with.Details.EN, other.en, "details also say %s: %q", v, with.Details.EN)
				}
				assert.NotContains(t, without.Details.EN, other.en, "without a sending IP the details say %s: %q", v, without.Details.EN)
			}
			msg := "the sending IP changed the verdict: %s/%s/%q, without %s/%s/%q"
			args := []any{with.Status, with.Severity, with.Summary.EN, without.Status, without.Severity, without.Summary.EN}
			assert.Equal(t, without.Status, with.Status, append([]any{msg}, args...)...)
			assert.Equal(t, without.Severity, with.Severity, append([]any{msg}, args...)...)
			assert.Equal(t, without.Summary, with.Summary, append([]any{msg}, args...)...)
		})
	}
}

// TestSPFIPTextsComplete: every result of spf.Evaluate has a sentence.
func TestSPFIPTextsComplete(t *testing.T) {
	t.Parallel()
	for _, v := range []spf.Verdict{spf.VerdictNone, spf.VerdictNeutral, spf.VerdictPass, spf.VerdictFail,
		spf.VerdictSoftFail, spf.VerdictTempError, spf.VerdictPermError} {
		assert.Contains(t, spfIPTexts, v, "no sentence for %s", v)
	}
}

// TestSPFSendingIPBudget: when the SPF check's share of the scan's DNS
// budget runs out during the evaluation, the details say so instead of
// claiming the domain's DNS failed (temperror). The share is cut to the
// two questions of the expansion (TXT, A of h); an IPv6 sending IP makes
// the evaluation ask a third (AAAA of h).
func TestSPFSendingIPBudget(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$ORIGIN example.com.
@ SOA ns.example.com. hostmaster.example.com. 1 3600 600 86400 300
budget TXT "v=spf1 a:h.budget.example.com -all"
h.budget A 1.1.1.1
`)
	fixed := 0
	for _, n := range checkBudgets {
		fixed += n
	}
	for _, tc := range []struct {
		budget int
		want   text
	}{
		{fixed + 2, spfIPBudgetText},
		{fixed + 3, spfIPTexts[spf.VerdictFail]}, // room for AAAA: no address matches, -all
	} {
		s := New(Config{Resolver: dnstest.NewResolver(z), Now: func() time.Time { return fixedNow }, QueryBudget: tc.budget})
		sum, err := s.Scan(context.Background(), ScanRequest{Domain: "budget.example.com", SendingIP: "2606:4700::1111"})
		require.NoError(t, err)
		d := sum.Checks[1].Details
		want := tc.want.format()
		assert.True(t, strings.HasSuffix(d.EN, want.EN), "budget %d: details %q do not end with %q", tc.budget, d.EN, want.EN)
		assert.True(t, strings.HasSuffix(d.ZH, want.ZH), "budget %d: details %q do not end with %q", tc.budget, d.EN, want.EN)
		if tc.want != spfIPTexts[spf.VerdictTempError] {
			assert.NotContains(t, d.EN, spfIPTexts[spf.VerdictTempError].en, "budget %d: details claim a DNS failure: %q", tc.budget, d.EN)
		}
	}
}
