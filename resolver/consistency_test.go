package resolver_test

import (
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestMemoryMatchesServer: the in-memory dnstest.Resolver answers every
// question of the outcome table exactly as a Client talking to a
// dnstest.Server does, and both match the table.
func TestMemoryMatchesServer(t *testing.T) {
	t.Parallel()
	z := zones(t)
	srv := dnstest.Start(t, z)
	c := client(srv)
	mem := dnstest.NewResolver(z)
	for _, tc := range outcomeCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			overWire := c.Lookup(t.Context(), tc.qname, tc.qtype)
			inMemory := mem.Lookup(t.Context(), tc.qname, tc.qtype)
			assert.Equal(t, overWire, inMemory, "answer mismatch")
			assert.Equal(t, tc.want, inMemory, "answer mismatch")
		})
	}
}

// TestMemoryMatchesServerFaults: the same holds with faults, except that
// the in-memory resolver reports a drop at once.
func TestMemoryMatchesServerFaults(t *testing.T) {
	t.Parallel()
	z := zones(t)
	tests := []struct {
		name  string
		qname string // the fault is set on fname, the question asks qname
		fname string
		fault dnstest.Fault
	}{
		{"servfail", "a.resolver.test", "a.resolver.test", dnstest.ServFail},
		{"refused", "a.resolver.test", "a.resolver.test", dnstest.Refused},
		{"rcode", "a.resolver.test", "a.resolver.test", dnstest.Fault{Rcode: dns.RcodeNotImplemented}},
		{"drop", "a.resolver.test", "a.resolver.test", dnstest.Drop},
		{"garbage", "a.resolver.test", "a.resolver.test", dnstest.Garbage},
		{"truncate", "txt.resolver.test", "txt.resolver.test", dnstest.Truncate},
		{"delay", "a.resolver.test", "a.resolver.test", dnstest.Delay(20 * time.Millisecond)},
		{"fault-on-cname-target", "alias.resolver.test", "a.resolver.test", dnstest.ServFail},
		{"fault-on-nxdomain-name", "missing.resolver.test", "missing.resolver.test", dnstest.Refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			mem := dnstest.NewResolver(z)
			srv.SetFault(tc.fname, dnstest.AnyType, tc.fault)
			mem.SetFault(tc.fname, dnstest.AnyType, tc.fault)
			for _, qtype := range []resolver.Type{resolver.TypeA, resolver.TypeTXT} {
				overWire := srv.Client(faultTimeout).Lookup(t.Context(), tc.qname, qtype)
				assert.Equal(t, overWire, mem.Lookup(t.Context(), tc.qname, qtype), "answer mismatch")
			}
		})
	}
}
