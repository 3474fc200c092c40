package mailauth

import (
	"context"
	"strings"
	"testing"
	"time"

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
		if err != nil {
			t.Fatalf("Scan(%s, %s): %v", domain, ip, err)
		}
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
			if with.ID != CheckSPF {
				t.Fatalf("check 1 is %s", with.ID)
			}
			want := spfIPTexts[tc.want].format()
			if !strings.HasSuffix(with.Details.EN, want.EN) || !strings.HasSuffix(with.Details.ZH, want.ZH) {
				t.Errorf("details %q do not end with %q", with.Details.EN, want.EN)
			}
			for v, other := range spfIPTexts {
				if v != tc.want && strings.Contains(with.Details.EN, other.en) {
					t.Errorf("details also say %s: %q", v, with.Details.EN)
				}
				if strings.Contains(without.Details.EN, other.en) {
					t.Errorf("without a sending IP the details say %s: %q", v, without.Details.EN)
				}
			}
			if with.Status != without.Status || with.Severity != without.Severity || with.Summary != without.Summary {
				t.Errorf("the sending IP changed the verdict: %s/%s/%q, without %s/%s/%q",
					with.Status, with.Severity, with.Summary.EN, without.Status, without.Severity, without.Summary.EN)
			}
		})
	}
}

// TestSPFIPTextsComplete: every result of spf.Evaluate has a sentence.
func TestSPFIPTextsComplete(t *testing.T) {
	t.Parallel()
	for _, v := range []spf.Verdict{spf.VerdictNone, spf.VerdictNeutral, spf.VerdictPass, spf.VerdictFail,
		spf.VerdictSoftFail, spf.VerdictTempError, spf.VerdictPermError} {
		if _, ok := spfIPTexts[v]; !ok {
			t.Errorf("no sentence for %s", v)
		}
	}
}
