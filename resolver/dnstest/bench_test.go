package dnstest_test

import (
	"testing"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkResolverLookup: the in-memory resolver, for a direct answer, a
// CNAME chain and an NXDOMAIN.
func BenchmarkResolverLookup(b *testing.B) {
	z := dnstest.MustLoad(b, "../testdata/resolver.zone")
	for _, bc := range []struct {
		name, qname string
		qtype       resolver.Type
	}{
		{"found", "a.resolver.test", resolver.TypeA},
		{"cname", "alias2.resolver.test", resolver.TypeA},
		{"nxdomain", "missing.resolver.test", resolver.TypeA},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := dnstest.NewResolver(z)
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				r.Lookup(ctx, bc.qname, bc.qtype)
			}
		})
	}
}
