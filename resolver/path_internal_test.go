package resolver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clockedScan returns a Scan on clk whose wrapped resolver advances clk
// by wire[name] before answering, after waiting on gate[name] if set.
func clockedScan(clk *ManualClock, wire map[string]time.Duration, gate map[string]chan struct{}) *Scan {
	s := NewScan(Func(func(ctx context.Context, name string, qtype Type) Answer {
		if g := gate[name]; g != nil {
			<-g
		}
		clk.Advance(wire[name])
		return Answer{Outcome: NoData, Rcode: 0}
	}), 0)
	s.now = clk.Now
	return s
}

// TestPathChain: an answer asked after another came back counts as
// depending on it; a question another strand already asked counts with
// its own wire time; Step and Join add what the strand waited on.
func TestPathChain(t *testing.T) {
	clk := &ManualClock{t: time.Unix(0, 0)}
	s := clockedScan(clk, map[string]time.Duration{"a": 10 * time.Millisecond, "b": 20 * time.Millisecond}, nil)
	x, y := new(Path), new(Path)
	xctx, yctx := WithPath(context.Background(), x), WithPath(context.Background(), y)
	s.Lookup(xctx, "a", TypeTXT)
	require.Equal(t, 10*time.Millisecond, x.Bound(), "after a: bound")
	s.Lookup(xctx, "b", TypeTXT)
	require.Equal(t, 30*time.Millisecond, x.Bound(), "after a then b: bound %v, %d hops, want 30ms, 2", x.Bound(), x.Hops())
	require.Equal(t, 2, x.Hops(), "after a then b: bound %v, %d hops, want 30ms, 2", x.Bound(), x.Hops())
	s.Lookup(yctx, "b", TypeTXT) // answered from the scan's cache: still b's wire time
	require.Equal(t, 20*time.Millisecond, y.Bound(), "strand y asked only b: bound")
	y.Join(x)
	require.Equal(t, 30*time.Millisecond, y.Bound(), "y joined x: bound")
	clk.Advance(5 * time.Millisecond)
	x.Step(clk.Now())
	require.Equal(t, 35*time.Millisecond, x.Bound(), "after a 5ms step: bound")
	var none *Path
	none.Step(clk.Now())
	require.Zero(t, none.Bound(), "a nil Path must stay at 0")
}

// TestPathConcurrent: two questions asked before either answer came back
// count as the longer of them, not their sum, even though their answers
// arrive one after the other.
func TestPathConcurrent(t *testing.T) {
	clk := &ManualClock{t: time.Unix(0, 0)}
	gateC, gateD := make(chan struct{}), make(chan struct{})
	s := clockedScan(clk, map[string]time.Duration{"c": 10 * time.Millisecond, "d": 10 * time.Millisecond},
		map[string]chan struct{}{"c": gateC, "d": gateD})
	p := new(Path)
	ctx := WithPath(context.Background(), p)
	var wg sync.WaitGroup
	cDone := make(chan struct{})
	wg.Go(func() { s.Lookup(ctx, "c", TypeTXT); close(cDone) })
	wg.Go(func() { s.Lookup(ctx, "d", TypeTXT) })
	// Both questions are in flight (both started at clock 0) before
	// either answers.
	for s.pending() < 2 {
		time.Sleep(time.Millisecond)
	}
	close(gateC) // c answers at 10 ms
	<-cDone
	close(gateD) // d answers at 20 ms: its wire time is 20 ms
	wg.Wait()
	require.Equal(t, 20*time.Millisecond, p.Bound(), "bound %v, %d hops, want 20ms and 1 (the longer of two concurrent questions)", p.Bound(), p.Hops())
	require.Equal(t, 1, p.Hops(), "bound %v, %d hops, want 20ms and 1 (the longer of two concurrent questions)", p.Bound(), p.Hops())
}

// pending returns the number of questions claimed so far (tests).
func (s *Scan) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// TestPathCacheHit: a question the shared Cache answers from memory
// costs no round trip; one it sent below costs one.
func TestPathCacheHit(t *testing.T) {
	cache := NewCache(Func(func(ctx context.Context, name string, qtype Type) Answer {
		return Answer{Outcome: Found, Records: []Record{{Name: name, Type: TypeTXT, TTL: 60, TXT: []string{"x"}}}}
	}), 0)
	first, second := new(Path), new(Path)
	NewScan(cache, 0).Lookup(WithPath(context.Background(), first), "a", TypeTXT)
	NewScan(cache, 0).Lookup(WithPath(context.Background(), second), "a", TypeTXT)
	require.Equal(t, 1, first.Hops(), "hops %d then %d, want 1 (sent) then 0 (cached)", first.Hops(), second.Hops())
	require.Equal(t, 0, second.Hops(), "hops %d then %d, want 1 (sent) then 0 (cached)", first.Hops(), second.Hops())
}
