package mailauth

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// domainFaults are the domain-side faults with a reason that causes each.
var domainFaults = []struct {
	fault  fault
	reason resolver.Reason
}{
	{faultDNSSEC, resolver.ReasonDNSSEC},
	{faultNoAnswer, resolver.ReasonServFail},
	{faultAlias, resolver.ReasonCNAMELoop},
	{faultAlias, resolver.ReasonCNAMEChain},
}

// TestAttributionOwnAndForeignAlike: when the domain's own name and a
// name its records point to fail the same way, the user reads the
// sentence about "a name this check depends on": the sentence about the
// domain's own servers would be false for the other name. The order of
// the lookups does not matter. The domain's own name alone reads the
// first sentence.
func TestAttributionOwnAndForeignAlike(t *testing.T) {
	const own, foreign = "_dmarc.good.example.com", "good.example.com._report._dmarc.reports.example.net"
	for _, df := range domainFaults {
		for _, order := range [][]string{{own, foreign}, {foreign, own}, {own}} {
			failing := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { return resolver.Fail(df.reason) })
			log := &faultLog{next: failing, domain: resolver.CanonicalName("good.example.com")}
			for _, name := range order {
				log.Lookup(context.Background(), name, resolver.TypeTXT)
			}
			at := log.attribute(func() bool { return true })
			f, isOwn := at.fault, at.own
			require.Equal(t, df.fault, f, "%s, names %q", df.reason, order)
			want := faultRules[df.fault][1] // a name the check depends on
			if len(order) == 1 {
				want = faultRules[df.fault][0] // the domain's own
			}
			assert.Equal(t, len(order) == 1, isOwn, "%s, names %q", df.reason, order)
			got := faultVerdict(f, isOwn, inconclusiveVerdict(nil)).toSummary(CheckDMARC)
			assert.Equal(t, want.say.format(), got.Summary, "%s, names %q", df.reason, order)
		}
	}
}

// TestDomainFaultSeverity pins what every domain-side fault sentence
// makes of a check, the alias (CNAME) ones included: a fail of high
// severity, whether the failing name is the domain's own (through a scan)
// or a name it points to.
func TestDomainFaultSeverity(t *testing.T) {
	for _, df := range domainFaults {
		t.Run(string(df.reason), func(t *testing.T) {
			mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
			failing := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
				if resolver.CanonicalName(name) == "_smtp._tls.good.example.com" {
					return resolver.Fail(df.reason)
				}
				return mem.Lookup(ctx, name, qtype)
			})
			sum, err := New(Config{Resolver: failing}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			require.NoError(t, err)
			c := checkOf(t, sum, CheckTLSRPT)
			assert.Equal(t, faultRules[df.fault][0].say.format(), c.Summary)
			assert.Equal(t, StatusFail, c.Status, "own name: %q", c.Summary.EN)
			assert.Equal(t, SeverityHigh, c.Severity, "own name: %q", c.Summary.EN)

			foreign := faultVerdict(df.fault, false, inconclusiveVerdict(nil)).toSummary(CheckTLSRPT)
			assert.Equal(t, faultRules[df.fault][1].say.format(), foreign.Summary)
			assert.Equal(t, StatusFail, foreign.Status, "foreign name: %q", foreign.Summary.EN)
			assert.Equal(t, SeverityHigh, foreign.Severity, "foreign name: %q", foreign.Summary.EN)
		})
	}
}
