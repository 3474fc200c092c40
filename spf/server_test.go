package spf

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestCheckServer runs scenarios through the real UDP/TCP server on
// loopback and resolver.Client: truncation forces the TCP retry, a dropped
// reply is a real timeout.
func TestCheckServer(t *testing.T) {
	t.Parallel()
	tests := []checkCase{
		// found over UDP.
		{name: "minimal", want: policy(11, 0, "-")},
		// include:a.nest (1) → include:b.nest (2) → mx (3), over the wire.
		{name: "nested-3", want: policy(35, 3, "-")},
		// the TXT reply is truncated over UDP: the client retries over TCP.
		{name: "truncated", faults: []fault{{Name: "truncated.spf.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: policy(11, 0, "-")},
		// the truncated record is the include target (1).
		{name: "include-one", faults: []fault{{Name: "t1.inc.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: policy(31, 1, "-")},
		{name: "servfail", faults: []fault{{Name: "servfail.spf.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: Result{
			Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail, LookupLimit: MaxLookups,
			Error: ClassTempError, ErrorCause: CodeTXTInconclusive, Findings: []Code{CodeTXTInconclusive},
		}},
		{name: "timeout", faults: []fault{{Name: "timeout.spf.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}}, want: Result{
			Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, LookupLimit: MaxLookups,
			Error: ClassTempError, ErrorCause: CodeTXTInconclusive, Findings: []Code{CodeTXTInconclusive},
		}},
		// include (1) whose target times out: a lower bound.
		{name: "include-timeout", faults: []fault{{Name: "slow.inc.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
			want: with(policy(33, 1, "-"), func(r *Result) {
				r.LookupComplete = false
				temp(r, CodeIncludeInconclusive, CodeIncludeInconclusive)
			})},
		// a:g1 (1) a:g2 (2) a:g3 (3), NXDOMAIN with an SOA over the wire: 3 voids.
		{name: "void-3", want: with(policy(53, 3, "-"), func(r *Result) {
			r.VoidLookups = 3
			perm(r, CodeVoidLimitExceeded, CodeVoidLookup, CodeVoidLimitExceeded)
		})},
	}
	z := loadZones(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			tc.run(t, srv.PatientResolver())
			for _, f := range tc.faults {
				if f.Fault.Truncate {
					assert.NotZero(t, srv.CountOver(f.Name, dnstest.AnyType, "tcp"), "%s was never asked over TCP", f.Name)
				}
			}
		})
	}
}
