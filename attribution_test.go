package mailauth

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestAttribution: an inconclusive answer is judged from its attributed
// cause, a typed fact: a domain-side fault is a fail that names it (the
// domain's own name, or a name its records point to), a service-side
// fault fails the scan, an unattributed one stays undetermined.
func TestAttribution(t *testing.T) {
	cases := []struct {
		name   string
		reason resolver.Reason
		qname  string // the name whose TXT lookups fail
		check  CheckID
		want   fault // faultNone = undetermined
	}{
		{"dnssec", resolver.ReasonDNSSEC, "_dmarc.good.example.com", CheckDMARC, faultDNSSEC},
		{"no reachable authority", resolver.ReasonNoReachableAuthority, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer},
		{"slow", resolver.ReasonSlow, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer},
		{"servfail, resolver works", resolver.ReasonServFail, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer},
		{"timeout, resolver works", resolver.ReasonTimeout, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer},
		{"cname loop", resolver.ReasonCNAMELoop, "_smtp._tls.good.example.com", CheckTLSRPT, faultAlias},
		{"cname chain", resolver.ReasonCNAMEChain, "_smtp._tls.good.example.com", CheckTLSRPT, faultAlias},
		{"malformed", resolver.ReasonMalformed, "_smtp._tls.good.example.com", CheckTLSRPT, faultNone},
		{"budget", resolver.ReasonBudgetExhausted, "_smtp._tls.good.example.com", CheckTLSRPT, faultNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
			failing := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
				if resolver.CanonicalName(name) == tc.qname {
					return resolver.Fail(tc.reason)
				}
				return mem.Lookup(ctx, name, qtype)
			})
			var mu sync.Mutex
			var reasons []resolver.Reason
			onInconclusive := func(r resolver.Reason) { mu.Lock(); reasons = append(reasons, r); mu.Unlock() }
			got, err := New(Config{Resolver: failing, OnInconclusive: onInconclusive}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			require.NoError(t, err)
			mu.Lock()
			assert.Contains(t, reasons, tc.reason, "Config.OnInconclusive hears the reason")
			mu.Unlock()
			c := checkOf(t, got, tc.check)
			if tc.want == faultNone {
				assert.True(t, c.Undetermined(), "%+v", c)
				assert.Equal(t, StatusWarn, c.Status)
				assert.Equal(t, NoDNSFault, c.DNSFault)
				return
			}
			assert.False(t, c.Undetermined())
			assert.Equal(t, StatusFail, c.Status)
			assert.Equal(t, faultRules[tc.want][0].say.format(), c.Summary)
			assert.Equal(t, tc.want, c.DNSFault, "CheckSummary.DNSFault names the cause")
			assert.Contains(t, c.Details.EN, faultDetails.en)
		})
	}
}

// TestAttributionServiceSide: a refusal or an unreachable resolver is
// the service's fault, and so is a SERVFAIL or a timeout when the
// control question fails too: the scan answers ErrResolverUnavailable.
func TestAttributionServiceSide(t *testing.T) {
	for _, tc := range []struct {
		name        string
		reason      resolver.Reason
		probeAnswer bool
	}{
		{"network", resolver.ReasonNetwork, true},
		{"refused by our resolver", resolver.ReasonRefused, true},
		{"resolver policy", resolver.ReasonResolverPolicy, true},
		{"servfail, probe fails", resolver.ReasonServFail, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
			r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
				switch {
				case name == probeName && !tc.probeAnswer:
					return resolver.Fail(tc.reason)
				case resolver.CanonicalName(name) == "_dmarc.good.example.com":
					return resolver.Fail(tc.reason)
				}
				return mem.Lookup(ctx, name, qtype)
			})
			_, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			assert.ErrorIs(t, err, ErrResolverUnavailable)
		})
	}
}

// TestAttributionForeignName: a failing name outside the scanned domain
// (an SPF include target) is named as a name the check depends on.
func TestAttributionForeignName(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	mem.SetFault("good.example.com", resolver.TypeTXT, dnstest.Bogus)
	got, err := New(Config{Resolver: mem}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	assert.Equal(t, faultRules[faultDNSSEC][0].say.format(), checkOf(t, got, CheckSPF).Summary, "the domain's own TXT")

	for _, f := range []fault{faultDNSSEC, faultNoAnswer, faultAlias} {
		for i, own := range []bool{true, false} {
			v := faultVerdict(f, own, inconclusiveVerdict(nil))
			assert.Equal(t, faultRules[f][i].say.format(), v.summary, "fault %d own %v", f, own)
			assert.Equal(t, StatusFail, v.status)
		}
	}

	l := &faultLog{domain: "good.example.com"}
	l.reasons = []lookupFault{{reason: resolver.ReasonDNSSEC, own: false}}
	f, isOwn := l.attribute(func() bool { return true })
	assert.Equal(t, faultDNSSEC, f)
	assert.False(t, isOwn)
	v := faultVerdict(f, isOwn, inconclusiveVerdict(nil))
	assert.Equal(t, faultRules[faultDNSSEC][1].say.format(), v.summary)
}

// TestDNSSECValidatedFact: when the resolver validated the domain's MX
// answer (AD bit), the MX check's details say so; otherwise they say
// nothing about DNSSEC.
func TestDNSSECValidatedFact(t *testing.T) {
	for _, ad := range []bool{true, false} {
		mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
		r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			a := mem.Lookup(ctx, name, qtype)
			a.Authentic = ad
			return a
		})
		got, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		mx := checkOf(t, got, CheckMX)
		assert.Equal(t, ad, contains(mx.Details.EN, txtDNSSECValidated.en), "AD %v: %q", ad, mx.Details.EN)
		assert.Equal(t, ad, contains(mx.Details.ZH, txtDNSSECValidated.zh))
	}
}

func checkOf(t *testing.T, s ScanSummary, id CheckID) CheckSummary {
	t.Helper()
	for _, c := range s.Checks {
		if c.ID == id {
			return c
		}
	}
	require.FailNow(t, "no such check", "no %s check", id)
	return CheckSummary{}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
