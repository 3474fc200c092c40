package mailauth

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestOneCause: when every lookup under the domain fails for one
// domain-side fault, the checks fail for it and the overall summary
// names that cause first, once, with the number of checks it fails; a
// domain with a single failing lookup keeps its plain summary.
func TestOneCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason resolver.Reason
		want   DNSFault
	}{
		{"name servers", resolver.ReasonNoReachableAuthority, DNSFaultNoAnswer},
		{"dnssec", resolver.ReasonDNSSEC, DNSFaultDNSSEC},
		{"cname loop", resolver.ReasonCNAMELoop, DNSFaultAlias},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
			failing := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
				n := resolver.CanonicalName(name)
				if n == "good.example.com" || strings.HasSuffix(n, ".good.example.com") {
					return resolver.Fail(tc.reason)
				}
				return mem.Lookup(ctx, name, qtype)
			})
			got, err := New(Config{Resolver: failing}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			require.NoError(t, err)
			f, n := OneCause(got.Checks)
			assert.Equal(t, tc.want, f)
			assert.GreaterOrEqual(t, n, 5, "MX, SPF, DMARC, MTA-STS, TLS-RPT and CAA fail for it")
			first := txtOneCause[tc.want].format(n)
			assert.True(t, strings.HasPrefix(got.Summary.EN, first.EN), "%q", got.Summary.EN)
			assert.True(t, strings.HasPrefix(got.Summary.ZH, first.ZH), "%q", got.Summary.ZH)
			assert.Equal(t, 1, strings.Count(got.Summary.EN, "One cause"), "told once: %q", got.Summary.EN)
		})
	}
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	one := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		if resolver.CanonicalName(name) == "_smtp._tls.good.example.com" {
			return resolver.Fail(resolver.ReasonDNSSEC)
		}
		return mem.Lookup(ctx, name, qtype)
	})
	got, err := New(Config{Resolver: one}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	f, n := OneCause(got.Checks)
	assert.Equal(t, NoDNSFault, f, "one failing check is no shared cause")
	assert.Zero(t, n)
	assert.NotContains(t, got.Summary.EN, "One cause")
}

// TestOneCauseMixed: two different faults are two causes: none is told
// first.
func TestOneCauseMixed(t *testing.T) {
	checks := []CheckSummary{
		{ID: CheckMX, Status: StatusFail, DNSFault: DNSFaultNoAnswer},
		{ID: CheckSPF, Status: StatusFail, DNSFault: DNSFaultDNSSEC},
		{ID: CheckDMARC, Status: StatusFail},
	}
	f, n := OneCause(checks)
	assert.Equal(t, NoDNSFault, f)
	assert.Zero(t, n)
	checks[1].DNSFault = DNSFaultNoAnswer
	f, n = OneCause(checks)
	assert.Equal(t, DNSFaultNoAnswer, f)
	assert.Equal(t, 2, n)
	assert.Len(t, FaultSummaries(), 3)
}
