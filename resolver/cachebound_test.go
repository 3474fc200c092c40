package resolver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// freshStrings is a Resolver whose answers own their strings, as the
// Client's do (each unpacked from its reply): the in-memory resolver's
// share the zone's, which a Cache's entries would not pay for.
type freshStrings struct{ resolver.Resolver }

func (f freshStrings) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	a := f.Resolver.Lookup(ctx, name, qtype)
	a.Records = append([]resolver.Record(nil), a.Records...)
	for i := range a.Records {
		r := &a.Records[i]
		r.Name, r.Target = strings.Clone(r.Name), strings.Clone(r.Target)
		txt := make([]string, len(r.TXT))
		for j, t := range r.TXT {
			txt[j] = strings.Clone(t)
		}
		r.TXT = txt
	}
	return a
}

// TestCacheBoundIsHonest: the bytes a Cache charges for its answers
// (Stats().Bytes, what its bound counts) are at least what they hold on
// the heap, and not much more: 20,000 answers of each of the shapes a
// scan caches most (one A, one MX, one SPF-sized TXT) are stored, and
// the live heap they add is compared with the charge. Not parallel: the
// heap is read around the stores, with no other test allocating.
func TestCacheBoundIsHonest(t *testing.T) {
	const n = 20000
	var zone strings.Builder
	zone.WriteString("$ORIGIN bound.test.\n@ SOA ns hostmaster 1 3600 600 86400 300\n")
	for i := range n {
		fmt.Fprintf(&zone, "h%d 300 A 192.0.2.1\n", i)
		fmt.Fprintf(&zone, "h%d 300 MX 10 mx%d.example.org.\n", i, i)
		fmt.Fprintf(&zone, "h%d 300 TXT \"v=spf1 include:_spf.example.com include:_netblocks%d.example.net ip4:192.0.2.0/24 -all\"\n", i, i)
	}
	mem := freshStrings{dnstest.NewResolver(dnstest.MustParse(t, zone.String()))}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("h%d.bound.test", i)
	}
	for _, typ := range []resolver.Type{resolver.TypeA, resolver.TypeMX, resolver.TypeTXT} {
		c := resolver.NewCache(mem, 1<<30)
		before := liveHeap()
		for _, name := range names {
			require.Equal(t, resolver.Found, c.Lookup(context.Background(), name, typ).Outcome, "%s %s", name, typ)
		}
		held := float64(liveHeap()) - float64(before)
		st := c.Stats()
		require.Equal(t, n, st.Entries, "%s: the answers kept", typ)
		charged := float64(st.Bytes)
		assert.GreaterOrEqual(t, charged, held, "%s: charged %.0f B an answer, the heap holds %.0f", typ, charged/n, held/n)
		assert.LessOrEqual(t, charged, 1.25*held, "%s: charged %.0f B an answer, the heap holds %.0f", typ, charged/n, held/n)
		t.Logf("%s: charged %.0f B an answer, the heap holds %.0f", typ, charged/n, held/n)
		c.Purge()
	}
}
