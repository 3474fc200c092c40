package spf

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// rtt is the fake round trip of waveResolver: inside a synctest bubble
// time only moves when every goroutine waits, so the elapsed fake time
// divided by rtt is the number of sequential waves of lookups, whatever
// the machine's load.
const rtt = time.Second

// waveResolver holds every answer back by rtt of fake time and records
// the largest number of lookups in flight at once.
type waveResolver struct {
	next resolver.Resolver

	mu       sync.Mutex
	inFlight int
	peak     int
}

func (w *waveResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	w.mu.Lock()
	w.inFlight++
	w.peak = max(w.peak, w.inFlight)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.inFlight--
		w.mu.Unlock()
	}()
	time.Sleep(rtt)
	return w.next.Lookup(ctx, name, qtype)
}

// roundTrips checks domain through a waveResolver over z (ahead or
// sequentially) in a bubble and returns the result, the round trips it
// took and the most lookups in flight at once.
func roundTrips(t *testing.T, z *dnstest.Zones, domain string, ahead bool) (res Result, trips int, peak int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		w := &waveResolver{next: dnstest.NewResolver(z)}
		start := time.Now()
		res = check(t.Context(), w, domain, ahead)
		elapsed := time.Since(start)
		w.mu.Lock()
		assert.Zero(t, w.inFlight, "no lookup outlives the Check that started it")
		w.mu.Unlock()
		require.Zero(t, elapsed%rtt, "fake time moves in whole round trips")
		trips, peak = int(elapsed/rtt), w.peak
	})
	return res, trips, peak
}

// includeTree returns a zone in which root.tree.test's record includes
// fanout[0] targets, each of which includes fanout[1] targets, and so on;
// the last level's records list an address. It also returns the number of
// include targets.
func includeTree(t *testing.T, fanout ...int) (*dnstest.Zones, int) {
	t.Helper()
	var z strings.Builder
	z.WriteString("$TTL 300\ntree.test. SOA ns.tree.test. h.tree.test. 1 3600 600 86400 300\n")
	targets := 0
	var level func(name string, depth int)
	level = func(name string, depth int) {
		if depth == len(fanout) {
			fmt.Fprintf(&z, "%s. TXT \"v=spf1 ip4:192.0.2.%d -all\"\n", name, targets%250)
			return
		}
		var terms []string
		for i := range fanout[depth] {
			child := fmt.Sprintf("n%d.%s", i, name)
			terms = append(terms, "include:"+child)
			targets++
			level(child, depth+1)
		}
		fmt.Fprintf(&z, "%s. TXT \"v=spf1 %s -all\"\n", name, strings.Join(terms, " "))
	}
	level("root.tree.test", 0)
	return dnstest.MustParse(t, z.String()), targets
}

// TestWalkRoundTripsEqualDepth: a 50-target include tree four records
// deep (the checked domain's record, then three levels of includes) takes
// four round trips, where the walk that fetches a subtree only when it
// gets there needs more; the results are the same.
func TestWalkRoundTripsEqualDepth(t *testing.T) {
	t.Parallel()
	z, targets := includeTree(t, 2, 4, 5)
	require.Equal(t, 50, targets)
	got, trips, peak := roundTrips(t, z, "root.tree.test", true)
	want, seqTrips, _ := roundTrips(t, z, "root.tree.test", false)
	assert.Equal(t, 4, trips, "round trips of the walk that fetches ahead")
	assert.Greater(t, seqTrips, 4, "the sequential reference")
	t.Logf("fetched ahead: %d round trips, %d lookups at once at most; sequential: %d round trips", trips, peak, seqTrips)
	assert.GreaterOrEqual(t, peak, 20, "the last level's targets are fetched together")
	assert.Equal(t, want, got)
	assert.Equal(t, MaxExpandTerms, *got.LookupCount, "the expansion cap is reached as before")
	assert.Contains(t, got.Findings, CodeSafetyBound)
}

// TestWalkRoundTripsWithinLimits: a tree within the RFC's ten lookups,
// four records deep, with an a term and an mx term (two round trips: the
// MX, then the exchange's address) above the last level, takes four round
// trips.
func TestWalkRoundTripsWithinLimits(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$TTL 300
tree.test. SOA ns.tree.test. h.tree.test. 1 3600 600 86400 300
small.tree.test. TXT "v=spf1 include:a.tree.test include:b.tree.test -all"
a.tree.test. TXT "v=spf1 include:a1.tree.test a:host.tree.test -all"
b.tree.test. TXT "v=spf1 mx:mail.tree.test include:b1.tree.test -all"
a1.tree.test. TXT "v=spf1 include:a2.tree.test -all"
b1.tree.test. TXT "v=spf1 include:b2.tree.test -all"
a2.tree.test. TXT "v=spf1 ip4:192.0.2.1 -all"
b2.tree.test. TXT "v=spf1 ip4:192.0.2.2 -all"
host.tree.test. A 192.0.2.3
mail.tree.test. MX 10 mx.tree.test.
mx.tree.test. A 192.0.2.4
`)
	got, trips, _ := roundTrips(t, z, "small.tree.test", true)
	want, seqTrips, _ := roundTrips(t, z, "small.tree.test", false)
	assert.Equal(t, want, got)
	assert.Equal(t, 4, trips)
	assert.Greater(t, seqTrips, trips)
	require.NotNil(t, got.LookupCount)
	assert.Equal(t, 8, *got.LookupCount)
	assert.True(t, got.LookupComplete)
}

// TestWalkAheadEqualsSequential: on every name of the test zone and every
// scenario with its faults, fetching ahead changes nothing in the result:
// counts, includes, findings and their order.
func TestWalkAheadEqualsSequential(t *testing.T) {
	t.Parallel()
	z := loadZones(t)
	for _, name := range z.Names() {
		r := dnstest.NewResolver(z)
		want := check(t.Context(), r, name, false)
		got := check(t.Context(), r, name, true)
		assert.Equal(t, want, got, name)
	}
	for _, tc := range checkCases {
		seq, ahead := dnstest.NewResolver(z), dnstest.NewResolver(z)
		seq.Apply(tc.faults...)
		ahead.Apply(tc.faults...)
		want := check(t.Context(), seq, tc.name+".spf.test", false)
		got := check(t.Context(), ahead, tc.name+".spf.test", true)
		assert.Equal(t, want, got, tc.name)
	}
}

// panickyStarter answers MX questions with two exchanges, at once, and
// panics when asked to start anything else, as a broken layer below
// might.
type panickyStarter struct{}

func (panickyStarter) Lookup(context.Context, string, resolver.Type) resolver.Answer {
	return resolver.Fail(resolver.ReasonNetwork)
}

func (panickyStarter) Start(_ context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	if qtype != resolver.TypeMX {
		panic("panickyStarter: " + name)
	}
	done(resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		{Type: resolver.TypeMX, Preference: 10, Target: "mx1.example.test"},
		{Type: resolver.TypeMX, Preference: 20, Target: "mx2.example.test"},
	}})
}

// TestTermLookupsPanicIsInconclusive: a panic while an mx term's answer
// starts its exchanges' lookups makes the term inconclusive, once,
// rather than leaving the walk waiting for it.
func TestTermLookupsPanicIsInconclusive(t *testing.T) {
	t.Parallel()
	var got []termResult
	startTermLookups(t.Context(), panickyStarter{}, KindMX, "example.test", func(res termResult) { got = append(got, res) })
	require.Equal(t, []termResult{{inconclusive: true}}, got)
}

// TestBudgetAdmitsInWalkOrder: under a question budget (the scanner's
// share for SPF is a resolver.Limited), the walk's questions are
// admitted in the record's order: an include first in the record gets
// its question before the a terms after it take the rest of the budget,
// so its invalid record makes the result a permerror, every time.
func TestBudgetAdmitsInWalkOrder(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$ORIGIN t.test.
@ SOA ns h 1 3600 600 86400 300
d TXT "v=spf1 include:inc.t.test a:h1.t.test a:h2.t.test a:h3.t.test a:h4.t.test a:h5.t.test a:h6.t.test a:h7.t.test a:h8.t.test a:h9.t.test -all"
inc TXT "v=spf1 ip4:192.0.2.300 -all"
h1 A 192.0.2.1
h2 A 192.0.2.1
h3 A 192.0.2.1
h4 A 192.0.2.1
h5 A 192.0.2.1
h6 A 192.0.2.1
h7 A 192.0.2.1
h8 A 192.0.2.1
h9 A 192.0.2.1
`)
	for range 100 {
		res := Check(t.Context(), resolver.Limit(resolver.NewScan(dnstest.NewResolver(z), 0), 10), "d.t.test")
		require.Equal(t, ClassPermError, res.Error, "%+v", res)
		require.Equal(t, CodeIncludeInvalid, res.ErrorCause, "%+v", res)
	}
}

// startPanics is a Starter whose Start panics, before it answers, for
// the questions of type panicOn past the first spare of them (a bug in a
// layer below); it asks next the others.
type startPanics struct {
	next    resolver.Resolver
	panicOn resolver.Type
	mu      sync.Mutex
	spare   int
}

func (s *startPanics) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	return resolver.Begin(ctx, s, name, qtype).Wait()
}

func (s *startPanics) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	s.mu.Lock()
	spared := qtype != s.panicOn || s.spare > 0
	if qtype == s.panicOn && s.spare > 0 {
		s.spare--
	}
	s.mu.Unlock()
	if !spared {
		panic("startPanics: " + name)
	}
	resolver.Start(ctx, s.next, name, qtype, done)
}

// TestStartPanicEndsWalk: a Start that panics before it answers, for a
// term's lookup or an include's, leaves the walk nothing to wait for: Check
// returns (the term or the include inconclusive).
func TestStartPanicEndsWalk(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$ORIGIN t.test.
@ SOA ns h 1 3600 600 86400 300
d TXT "v=spf1 a:h1.t.test include:inc.t.test -all"
inc TXT "v=spf1 -all"
h1 A 192.0.2.1
`)
	// The root's own TXT question is asked before the walk: the include's
	// is the second one.
	for _, r := range []*startPanics{{panicOn: resolver.TypeA}, {panicOn: resolver.TypeTXT, spare: 1}} {
		r.next = dnstest.NewResolver(z)
		got := make(chan Result, 1)
		go func() { got <- Check(context.Background(), r, "d.t.test") }()
		select {
		case res := <-got:
			assert.Equal(t, ClassTempError, res.Error, "%s: %+v", r.panicOn, res)
		case <-time.After(30 * time.Second): // generous: a walk that ends returns at once
			require.FailNow(t, "Check did not return: the walk waits for a lookup whose Start panicked", "%s", r.panicOn)
		}
	}
}
