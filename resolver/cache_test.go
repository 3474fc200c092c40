package resolver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// cacheZone has answers with distinct TTLs and an SOA whose MINIMUM (60)
// is below its own TTL (120): negative answers live 60 s (RFC 2308 §5).
const cacheZone = `$ORIGIN cache.test.
@        120 SOA ns hostmaster 1 3600 600 86400 60
@        3600 NS ns
ns       3600 A 127.0.0.1
short    30 TXT "short"
long     86400 TXT "long"
alias    20 CNAME short
mixed    100 A 192.0.2.1
mixed    40 A 192.0.2.2
`

// cacheOn starts a server for cacheZone and a Cache over a Client of it,
// on a manual clock.
func cacheOn(t *testing.T, maxBytes int) (*dnstest.Server, *resolver.Cache, *resolver.ManualClock) {
	t.Helper()
	srv := dnstest.Start(t, dnstest.MustParse(t, cacheZone))
	c := resolver.NewCache(client(srv), maxBytes)
	clk := &resolver.ManualClock{}
	resolver.SetCacheClock(c, clk.Now)
	return srv, c, clk
}

// TestCacheTTL: an answer is served from the cache until its TTL (the
// smallest of its records and aliases, capped at MaxCacheTTL) has passed,
// then asked again; the cached copy equals the wire answer.
func TestCacheTTL(t *testing.T) {
	tests := []struct {
		name  string
		qtype resolver.Type
		ttl   time.Duration
	}{
		{"short.cache.test", resolver.TypeTXT, 30 * time.Second},
		{"mixed.cache.test", resolver.TypeA, 40 * time.Second},
		{"alias.cache.test", resolver.TypeTXT, 20 * time.Second},    // the alias's TTL is the smaller
		{"long.cache.test", resolver.TypeTXT, resolver.MaxCacheTTL}, // capped
		{"missing.cache.test", resolver.TypeTXT, 60 * time.Second},  // NXDOMAIN: SOA minimum
		{"short.cache.test", resolver.TypeMX, 60 * time.Second},     // NODATA: SOA minimum
		{"nothing.cache.test", resolver.TypeCAA, 60 * time.Second},  // NXDOMAIN, another type
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.qtype.String(), func(t *testing.T) {
			srv, c, clk := cacheOn(t, 0)
			ctx := context.Background()
			first := c.Lookup(ctx, tc.name, tc.qtype)
			require.True(t, first.Conclusive(), "first lookup inconclusive: %s", show(first))
			clk.Advance(tc.ttl - time.Second)
			assert.Equal(t, first, c.Lookup(ctx, strings.ToUpper(tc.name)+".", tc.qtype), "answer mismatch")
			require.Equal(t, 1, srv.Count(tc.name, tc.qtype), "queries within the TTL")
			clk.Advance(time.Second)
			assert.Equal(t, first, c.Lookup(ctx, tc.name, tc.qtype), "answer mismatch")
			require.Equal(t, 2, srv.Count(tc.name, tc.qtype), "queries after the TTL")
			st := c.Stats()
			assert.Equal(t, uint64(1), st.Hits, "stats %+v: want 1 hit, 2 misses, 1 entry", st)
			assert.Equal(t, uint64(2), st.Misses, "stats %+v: want 1 hit, 2 misses, 1 entry", st)
			assert.Equal(t, 1, st.Entries, "stats %+v: want 1 hit, 2 misses, 1 entry", st)
		})
	}
}

// TestCacheInconclusive: SERVFAIL, REFUSED, a timeout and a canceled
// lookup are never kept; the next lookup asks again and sees the repaired
// answer.
func TestCacheInconclusive(t *testing.T) {
	faults := []struct {
		name  string
		fault dnstest.Fault
		asks  int // queries for both lookups: an error reply is asked once more before it counts
	}{
		{"servfail", dnstest.ServFail, 3},
		{"refused", dnstest.Refused, 3},
		{"garbage", dnstest.Garbage, 2},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			srv, c, _ := cacheOn(t, 0)
			srv.SetFault("short.cache.test", dnstest.AnyType, f.fault)
			a := c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT)
			require.False(t, a.Conclusive(), "faulty server gave %s", show(a))
			srv.SetFault("short.cache.test", dnstest.AnyType, dnstest.Fault{})
			a = c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT)
			require.Equal(t, resolver.Found, a.Outcome, "after the repair: %s", show(a))
			require.Equal(t, f.asks, srv.Count("short.cache.test", resolver.TypeTXT), "queries, want %d: the inconclusive answer must not be kept", f.asks)
		})
	}
	t.Run("canceled", func(t *testing.T) {
		srv, c, _ := cacheOn(t, 0)
		srv.SetFault("short.cache.test", dnstest.AnyType, dnstest.Delay(time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		a := c.Lookup(ctx, "short.cache.test", resolver.TypeTXT)
		require.False(t, a.Conclusive(), "canceled lookup gave %s", show(a))
		st := c.Stats()
		require.Equal(t, 0, st.Entries, "stats %+v: a canceled lookup must not be kept", st)
	})
}

// TestCacheNoSOA: a negative answer without an SOA in the authority
// section is not kept (RFC 2308 §5 gives it no TTL).
func TestCacheNoSOA(t *testing.T) {
	addr := startHandler(t, func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetRcode(r, dns.RcodeNameError)
		_ = w.WriteMsg(m)
	}, false)
	c := resolver.NewCache(&resolver.Client{Servers: []string{addr}, Attempts: 1}, 0)
	for range 2 {
		a := c.Lookup(context.Background(), "gone.test", resolver.TypeTXT)
		require.Equal(t, resolver.NXDomain, a.Outcome, "got %s, want nxdomain", show(a))
	}
	st := c.Stats()
	require.Equal(t, uint64(2), st.Misses, "stats %+v: a negative answer without SOA must not be kept", st)
	require.Equal(t, 0, st.Entries, "stats %+v: a negative answer without SOA must not be kept", st)
}

// TestCacheSingleflight: concurrent identical questions, in any case,
// reach the server once; the counters say how they were answered.
func TestCacheSingleflight(t *testing.T) {
	srv, c, _ := cacheOn(t, 0)
	srv.SetFault("short.cache.test", dnstest.AnyType, dnstest.Delay(100*time.Millisecond))
	const n = 50
	answers := lookupAll(context.Background(), c, n, resolver.TypeTXT, "short.cache.test", "SHORT.cache.test.")
	for _, a := range answers {
		require.Equal(t, resolver.Found, a.Outcome, "got %s", show(a))
		require.Equal(t, "short", a.TXTs()[0], "got %s", show(a))
	}
	answers[0].Records[0].TXT[0] = "changed" // each caller owns its copy
	got := c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT).TXTs()[0]
	require.Equal(t, "short", got, "a caller's change reached the cache")
	require.Equal(t, 1, srv.Count("short.cache.test", resolver.TypeTXT), "queries reached the server for %d concurrent identical questions", n)
	st := c.Stats()
	msg := []any{"stats %+v: want 1 miss and %d answered without the wire, some shared in flight", st, n}
	assert.Equal(t, uint64(1), st.Misses, msg...)
	assert.Equal(t, uint64(n), st.Hits+st.Shared, msg...)
	assert.NotZero(t, st.Shared, msg...)
	assert.Greater(t, st.HitRate(), 0.9, "hit rate %.2f", st.HitRate())
}

// TestCacheSenderGivesUp: when the caller that sent a shared question
// gives up, a waiter with a live context asks again instead of
// inheriting the cancellation.
func TestCacheSenderGivesUp(t *testing.T) {
	srv, c, _ := cacheOn(t, 0)
	srv.SetFault("short.cache.test", dnstest.AnyType, dnstest.Delay(200*time.Millisecond))
	short, cancel := context.WithCancel(context.Background())
	sent := make(chan resolver.Answer)
	go func() { sent <- c.Lookup(short, "short.cache.test", resolver.TypeTXT) }()
	waitFor(t, func() bool { return srv.Count("short.cache.test", resolver.TypeTXT) == 1 })
	waited := make(chan resolver.Answer)
	go func() { waited <- c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT) }()
	waitFor(t, func() bool { return c.Stats().Shared == 1 })
	cancel()
	a := <-sent
	require.False(t, a.Conclusive(), "canceled sender got %s", show(a))
	a = <-waited
	require.Equal(t, resolver.Found, a.Outcome, "waiter got %s, want found", show(a))
}

// TestCacheSenderOwnsItsAnswer: the caller that sent a shared question
// may change its answer at once without reaching a waiter's copy (under
// -race, a shared backing array is reported even when the timing hides it).
func TestCacheSenderOwnsItsAnswer(t *testing.T) {
	srv, c, _ := cacheOn(t, 0)
	srv.SetFault("short.cache.test", dnstest.AnyType, dnstest.Delay(100*time.Millisecond))
	sent := make(chan string)
	go func() {
		a := c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT)
		if a.Outcome != resolver.Found {
			sent <- show(a)
			return
		}
		a.Records[0].TXT[0] = "changed"
		sent <- ""
	}()
	waitFor(t, func() bool { return srv.Count("short.cache.test", resolver.TypeTXT) == 1 })
	waited := make(chan resolver.Answer)
	go func() { waited <- c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT) }()
	waitFor(t, func() bool { return c.Stats().Shared == 1 })
	bad := <-sent
	require.Empty(t, bad, "sender got %s", bad)
	a := <-waited
	require.Equal(t, resolver.Found, a.Outcome, "waiter got %s, want the wire's text", show(a))
	require.Equal(t, "short", a.TXTs()[0], "waiter got %s, want the wire's text", show(a))
}

// TestCacheCanceledBelow: a canceled answer is the sender's alone even
// when its ctx has not reported it yet (the Client answers canceled once
// the deadline has passed, a moment before ctx's timer fires): the waiter
// asks again instead of inheriting it.
func TestCacheCanceledBelow(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustParse(t, cacheZone))
	release := make(chan struct{})
	var first sync.Once
	below := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		canceled := false
		first.Do(func() { canceled = true })
		if canceled {
			<-release
			return resolver.Fail(resolver.ReasonCanceled)
		}
		return mem.Lookup(ctx, name, qtype)
	})
	c := resolver.NewCache(below, 0)
	sent := make(chan resolver.Answer)
	go func() { sent <- c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT) }()
	waitFor(t, func() bool { return c.Stats().Misses == 1 })
	waited := make(chan resolver.Answer)
	go func() { waited <- c.Lookup(context.Background(), "short.cache.test", resolver.TypeTXT) }()
	waitFor(t, func() bool { return c.Stats().Shared == 1 })
	close(release)
	a := <-sent
	require.Equal(t, resolver.ReasonCanceled, a.Reason, "sender got %s, want canceled", show(a))
	a = <-waited
	require.Equal(t, resolver.Found, a.Outcome, "waiter got %s, want found", show(a))
}

// TestCacheMemoryBound: the estimated memory never passes the bound; the
// least recently used answers are evicted and asked again.
func TestCacheMemoryBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(cacheZone)
	const names = 200
	for i := range names {
		fmt.Fprintf(&b, "n%d 3600 TXT \"v=spf1 include:_spf%d.provider.test -all\"\n", i, i)
	}
	srv := dnstest.Start(t, dnstest.MustParse(t, b.String()))
	const bound = 8 << 10
	c := resolver.NewCache(client(srv), bound)
	ctx := context.Background()
	for i := range names {
		c.Lookup(ctx, fmt.Sprintf("n%d.cache.test", i), resolver.TypeTXT)
		st := c.Stats()
		require.LessOrEqual(t, st.Bytes, bound, "after %d answers: %d bytes held, bound %d", i+1, st.Bytes, bound)
	}
	st := c.Stats()
	msg := []any{"stats %+v: %d answers cannot fit in %d bytes", st, names, bound}
	require.NotZero(t, st.Evictions, msg...)
	require.Less(t, st.Entries, names, msg...)
	require.NotZero(t, st.Entries, msg...)
	c.Lookup(ctx, "n0.cache.test", resolver.TypeTXT) // evicted long ago
	require.Equal(t, 2, srv.Count("n0.cache.test", resolver.TypeTXT), "the evicted answer was asked, want twice")
	c.Lookup(ctx, fmt.Sprintf("n%d.cache.test", names-1), resolver.TypeTXT) // recent
	require.Equal(t, 1, srv.Count(fmt.Sprintf("n%d.cache.test", names-1), resolver.TypeTXT), "the most recent answer was asked, want once")
}

// TestCachePlainResolver: over a Resolver without TTLs, Found answers
// are kept for their smallest record TTL and nothing else is kept.
func TestCachePlainResolver(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustParse(t, cacheZone))
	c := resolver.NewCache(mem, 0)
	ctx := context.Background()
	for range 2 {
		c.Lookup(ctx, "short.cache.test", resolver.TypeTXT)
		c.Lookup(ctx, "missing.cache.test", resolver.TypeTXT)
	}
	assert.Equal(t, 1, mem.Count("short.cache.test", resolver.TypeTXT), "found answer asked, want once")
	assert.Equal(t, 2, mem.Count("missing.cache.test", resolver.TypeTXT), "negative answer without a TTL asked, want twice")
}

// gatedResolver holds the lookups of one name until release is closed,
// telling asked of each first.
type gatedResolver struct {
	resolver.Resolver
	name    string
	asked   chan struct{}
	release chan struct{}
}

func (g gatedResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	if name == g.name {
		g.asked <- struct{}{}
		<-g.release
	}
	return g.Resolver.Lookup(ctx, name, qtype)
}

// TestCachePurge: Purge drops every answer held (they are asked again,
// and the counters say none is held), and a question in flight as it
// purges still stores its answer when it lands.
func TestCachePurge(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustParse(t, cacheZone))
	g := gatedResolver{Resolver: mem, name: "mixed.cache.test", asked: make(chan struct{}, 1), release: make(chan struct{})}
	c := resolver.NewCache(g, 0)
	ctx := context.Background()
	assert.Zero(t, c.Purge(), "an empty cache")
	for _, name := range []string{"short.cache.test", "long.cache.test"} {
		require.Equal(t, resolver.Found, c.Lookup(ctx, name, resolver.TypeTXT).Outcome)
	}
	require.Equal(t, 2, c.Stats().Entries)
	landed := make(chan resolver.Answer)
	go func() { landed <- c.Lookup(ctx, "mixed.cache.test", resolver.TypeA) }()
	<-g.asked // the question is in flight
	assert.Equal(t, 2, c.Purge(), "the answers held")
	st := c.Stats()
	assert.Zero(t, st.Entries, "entries after the purge")
	assert.Zero(t, st.Bytes, "bytes after the purge")
	close(g.release)
	require.Equal(t, resolver.Found, (<-landed).Outcome)
	assert.Equal(t, 1, c.Stats().Entries, "the flight's answer, stored as it landed")
	for _, name := range []string{"short.cache.test", "long.cache.test"} {
		require.Equal(t, resolver.Found, c.Lookup(ctx, name, resolver.TypeTXT).Outcome)
		assert.Equal(t, 2, mem.Count(name, resolver.TypeTXT), "%s: asked again after the purge", name)
	}
	c.Lookup(ctx, "mixed.cache.test", resolver.TypeA)
	assert.Equal(t, 1, mem.Count("mixed.cache.test", resolver.TypeA), "the answer stored after the purge is served")
}
