package dmarc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestCheckServer runs a few cases over real UDP and TCP on 127.0.0.1:
// truncation forces the TCP retry, a dropped reply is a real timeout.
func TestCheckServer(t *testing.T) {
	t.Parallel()
	z := zones(t)
	tests := []struct {
		name    string
		domain  string
		faults  []fault
		want    Result
		tcpName string // a name that must have been asked over TCP
	}{
		{name: "truncate", domain: "truncate.dmarc.test",
			faults:  []fault{{Name: "_dmarc.truncate.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Truncate}},
			want:    direct("truncate.dmarc.test", PolicyReject),
			tcpName: "_dmarc.truncate.dmarc.test"},
		{name: "truncate-mid-walk", domain: "mail.inherit-sp.dmarc.test",
			faults:  []fault{{Name: "_dmarc.inherit-sp.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Truncate}},
			want:    inherited("mail.inherit-sp.dmarc.test", "inherit-sp.dmarc.test", 4, Exists, TagSP, PolicyQuarantine),
			tcpName: "_dmarc.inherit-sp.dmarc.test"},
		{name: "timeout", domain: "timeout.dmarc.test",
			faults: []fault{{Name: "_dmarc.timeout.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: Result{
				Domain: "timeout.dmarc.test", Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout,
				Discovery: DiscoveryInconclusive, TreeWalkQueries: 1, DomainExistence: Exists,
			}},
		{name: "timeout-existence", domain: "ghost.inherit-np.dmarc.test",
			faults: []fault{{Name: "ghost.inherit-np.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: with(inherited("ghost.inherit-np.dmarc.test", "inherit-np.dmarc.test", 4, ExistenceUnknown, TagSP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodeExistenceUnknown}
			})},
		{name: "servfail-mid", domain: "mail.servfail-mid.dmarc.test",
			faults: []fault{{Name: "_dmarc.servfail-mid.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want: Result{
				Domain: "mail.servfail-mid.dmarc.test", Outcome: resolver.NXDomain, DirectRecordCount: new(0), Discovery: DiscoveryInconclusive,
				TreeWalkQueries: 2, DomainExistence: Exists,
			}},
		{name: "psd", domain: "a.b.ps27.example",
			want: with(inherited("a.b.ps27.example", "example", 4, Exists, TagP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodeNearerRecordIgnored, CodePSDPolicy}
			})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a bound on a hang, not on speed
			defer cancel()
			got := Check(ctx, srv.PatientResolver(), tc.domain)
			assert.Equal(t, tc.want, got, "Check(%q)", tc.domain)
			if tc.tcpName != "" {
				assert.NotZero(t, srv.CountOver(tc.tcpName, dnstest.AnyType, "tcp"), "%s was not retried over TCP", tc.tcpName)
			}
		})
	}
}
