package mailauth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestAttribution: an inconclusive answer is judged from its attributed
// cause, a typed fact: a domain-side fault is a fail that names it (the
// domain's own name, or a name its records point to), slowness is a warn
// left out of the score, a service-side fault fails the scan, an
// unattributed one stays undetermined. Config.OnInconclusive hears each
// answer with the side the verdict used.
func TestAttribution(t *testing.T) {
	cases := []struct {
		name   string
		reason resolver.Reason
		qname  string // the name whose TXT lookups fail
		check  CheckID
		want   fault // faultNone = undetermined
		side   resolver.Side
	}{
		{"dnssec", resolver.ReasonDNSSEC, "_dmarc.good.example.com", CheckDMARC, faultDNSSEC, resolver.SideDomain},
		{"no reachable authority", resolver.ReasonNoReachableAuthority, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer, resolver.SideDomain},
		{"slow", resolver.ReasonSlow, "_smtp._tls.good.example.com", CheckTLSRPT, faultSlow, resolver.SideNone},
		{"servfail, resolver works", resolver.ReasonServFail, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer, resolver.SideDomain},
		{"refused, resolver works", resolver.ReasonRefused, "_smtp._tls.good.example.com", CheckTLSRPT, faultNoAnswer, resolver.SideDomain},
		{"timeout, resolver works", resolver.ReasonTimeout, "_smtp._tls.good.example.com", CheckTLSRPT, faultSlow, resolver.SideNone},
		{"cname loop", resolver.ReasonCNAMELoop, "_smtp._tls.good.example.com", CheckTLSRPT, faultAlias, resolver.SideDomain},
		{"cname chain", resolver.ReasonCNAMEChain, "_smtp._tls.good.example.com", CheckTLSRPT, faultAlias, resolver.SideDomain},
		{"malformed", resolver.ReasonMalformed, "_smtp._tls.good.example.com", CheckTLSRPT, faultNone, resolver.SideNone},
		{"budget", resolver.ReasonBudgetExhausted, "_smtp._tls.good.example.com", CheckTLSRPT, faultNone, resolver.SideNone},
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
			sides := map[resolver.Reason][]resolver.Side{}
			onInconclusive := func(r resolver.Reason, s resolver.Side) { mu.Lock(); sides[r] = append(sides[r], s); mu.Unlock() }
			got, err := New(Config{Resolver: failing, OnInconclusive: onInconclusive}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			require.NoError(t, err)
			mu.Lock()
			require.NotEmpty(t, sides[tc.reason], "Config.OnInconclusive hears the reason")
			for _, s := range sides[tc.reason] {
				assert.Equal(t, tc.side, s, "the side the verdict used")
			}
			mu.Unlock()
			c := checkOf(t, got, tc.check)
			switch tc.want {
			case faultNone:
				assert.True(t, c.Undetermined(), "%+v", c)
				assert.Equal(t, UndeterminedLookup, c.Determination)
				assert.Equal(t, StatusWarn, c.Status)
				assert.Equal(t, NoDNSFault, c.DNSFault)
			case faultSlow:
				assert.Equal(t, UndeterminedSlow, c.Determination, "%+v", c)
				assert.Equal(t, StatusWarn, c.Status, "slowness is a warn, never a fail")
				assert.Equal(t, NoDNSFault, c.DNSFault, "slowness is no fault of the domain")
				assert.Equal(t, slowRule.say.format(), c.Summary)
				assert.NotContains(t, c.Details.EN, faultDetails.en, "never 'scanning again will not change the result'")
				assert.Contains(t, c.Details.EN, "The lookup waited over 1 s")
				assert.NotContains(t, got.Summary.EN, "incomplete", "one slow check of six leaves a grade")
				assert.Contains(t, got.Summary.EN, txtOverallSlowSome.format(1).EN)
				assert.Equal(t, UndeterminedSlow, determinationOf(c.Summary), "the JSON's summary reads back as slow")
			default:
				assert.False(t, c.Undetermined())
				assert.Equal(t, StatusFail, c.Status)
				assert.Equal(t, faultRules[tc.want][0].say.format(), c.Summary)
				assert.Equal(t, tc.want, c.DNSFault, "CheckSummary.DNSFault names the cause")
				assert.Contains(t, c.Details.EN, faultDetails.en)
			}
		})
	}
}

// TestAttributionSlowScan: a domain whose every lookup is slow is
// neither failed nor blamed on the service: the checks are slow warns
// left out of the score, and the summary says the scan is incomplete
// because the domain's name servers were too slow (ScanSummary.Slow),
// which the service answers with its own message.
func TestAttributionSlowScan(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	slow := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		if strings.HasSuffix(resolver.CanonicalName(name), "good.example.com") {
			return resolver.Fail(resolver.ReasonSlow)
		}
		return mem.Lookup(ctx, name, qtype)
	})
	got, err := New(Config{Resolver: slow}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err, "slowness is not the service's resolver failing")
	for _, c := range got.Checks {
		if c.Status == StatusInfo {
			continue
		}
		assert.Equal(t, StatusWarn, c.Status, "%s: %s", c.ID, c.Summary.EN)
		assert.Equal(t, UndeterminedSlow, c.Determination, "%s: %s", c.ID, c.Summary.EN)
	}
	assert.True(t, got.Incomplete())
	assert.True(t, got.Slow())
	evaluated := got.Counts.Pass + got.Counts.Warn + got.Counts.Fail
	assert.Equal(t, txtOverallSlow.format(evaluated, evaluated), got.Summary)
}

// TestAttributionServiceSide: an unreachable or filtering resolver is
// the service's fault, and so is any reason the control question decides
// (a SERVFAIL, a refusal, a timeout) or a domain-side one (DNSSEC) when
// the control question fails too: the scan answers
// ErrResolverUnavailable, and Config.OnInconclusive hears the service's
// side.
func TestAttributionServiceSide(t *testing.T) {
	for _, tc := range []struct {
		name        string
		reason      resolver.Reason
		probeAnswer bool
	}{
		{"network", resolver.ReasonNetwork, true},
		{"resolver policy", resolver.ReasonResolverPolicy, true},
		{"servfail, probe fails", resolver.ReasonServFail, false},
		{"refused, probe fails", resolver.ReasonRefused, false},
		{"timeout, probe fails", resolver.ReasonTimeout, false},
		{"dnssec, probe fails (a broken trust anchor)", resolver.ReasonDNSSEC, false},
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
			var mu sync.Mutex
			var sides []resolver.Side
			on := func(reason resolver.Reason, s resolver.Side) {
				mu.Lock()
				defer mu.Unlock()
				if reason == tc.reason {
					sides = append(sides, s)
				}
			}
			_, err := New(Config{Resolver: r, OnInconclusive: on}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			assert.ErrorIs(t, err, ErrResolverUnavailable)
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, sides)
			for _, s := range sides {
				assert.Equal(t, resolver.SideService, s)
			}
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
	a := l.attribute(func() bool { return true })
	assert.Equal(t, faultDNSSEC, a.fault)
	assert.False(t, a.own)
	v := faultVerdict(a.fault, a.own, inconclusiveVerdict(nil))
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

// TestAttributionSlowPartial: a finding that some of a check's lookups
// gave no conclusive answer (an MX exchange's address) is not a warn
// built on a time-out when those lookups ran out of time: the check is
// slowness, left out of the score. A lookup its deadline cut short is
// slowness too, whatever the layers below call it (ReasonCanceled).
func TestAttributionSlowPartial(t *testing.T) {
	// good.example.com with a second mail server, mx2, whose address
	// lookups fail with the reason given.
	zone := filepath.Join(t.TempDir(), "two-mx.zone")
	b, err := os.ReadFile(scanZone)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(zone, append(b, []byte("\n$ORIGIN example.com.\ngood MX 20 mx2.good\n")...), 0o600))
	scan := func(reason resolver.Reason) CheckSummary {
		mem := dnstest.NewResolver(dnstest.MustLoad(t, zone))
		r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			if resolver.CanonicalName(name) == "mx2.good.example.com" {
				return resolver.Fail(reason)
			}
			return mem.Lookup(ctx, name, qtype)
		})
		got, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		return checkOf(t, got, CheckMX)
	}
	for _, reason := range []resolver.Reason{resolver.ReasonSlow, resolver.ReasonTimeout} {
		c := scan(reason)
		assert.Equal(t, StatusWarn, c.Status, "%s: %s", reason, c.Summary.EN)
		assert.Equal(t, UndeterminedSlow, c.Determination, "%s: %s", reason, c.Summary.EN)
		assert.Contains(t, c.Details.EN, mxRules[mx.CodeExchangeInconclusive].say.format(1).EN, "the finding is kept in the details")
	}
	// The same finding for a reason that is no time-out stands.
	c := scan(resolver.ReasonMalformed)
	assert.Equal(t, Determined, c.Determination, c.Summary.EN)
	assert.Equal(t, mxRules[mx.CodeExchangeInconclusive].say.format(1), c.Summary)

	// A lookup that ends after its deadline, as canceled.
	l := &faultLog{next: resolver.Func(func(ctx context.Context, _ string, _ resolver.Type) resolver.Answer {
		<-ctx.Done()
		return resolver.Fail(resolver.ReasonCanceled)
	})}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	l.Lookup(ctx, "x.good.example.com", resolver.TypeTXT)
	assert.Equal(t, faultSlow, l.attribute(func() bool { return true }).fault)
	l2 := &faultLog{next: resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return resolver.Fail(resolver.ReasonCanceled)
	})}
	l2.Lookup(context.Background(), "x.good.example.com", resolver.TypeTXT)
	assert.Equal(t, faultNone, l2.attribute(func() bool { return true }).fault, "canceled by its caller: nothing to say")
	l3 := &faultLog{next: resolver.Func(func(ctx context.Context, _ string, _ resolver.Type) resolver.Answer {
		<-ctx.Done()
		return resolver.Fail(resolver.ReasonMalformed)
	})}
	ctx3, cancel3 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel3()
	l3.Lookup(ctx3, "x.good.example.com", resolver.TypeTXT)
	assert.Equal(t, faultNone, l3.attribute(func() bool { return true }).fault, "garbage at the deadline is not slowness")
}
