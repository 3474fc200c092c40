package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
)

// cutNow runs one look for diagnostics to cut, as the cut timer does.
func (s *scheduler) cutNow() {
	s.mu.Lock()
	cuts := s.stalled(true)
	s.mu.Unlock()
	runCuts(cuts)
}

// counts returns the diagnostics in flight and the waiting requests
// (tests).
func (s *scheduler) counts() (held, queued int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held), s.queued
}

// queuedFor reports whether src has a request waiting (tests).
func (s *scheduler) queuedFor(src string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues[src]) > 0
}

// siege runs n attacking sources against s, each keeping one diagnostic
// of a domain that never answers in flight or waiting at all times: when
// it is cut it ends, and the source asks again at once.
type siege struct {
	s      *scheduler
	n      int
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// siegeAddr is the i-th attacker address of the simulations (203.0.113.1
// on, 250 per /24; distinct for i below 35,750).
func siegeAddr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{203, 0, byte(113 + i/250), byte(1 + i%250)})
}

func startSiege(t *testing.T, s *scheduler, n int) *siege {
	ctx, cancel := context.WithCancel(context.Background())
	g := &siege{s: s, n: n, cancel: cancel}
	for i := range n {
		ad := admissionFor(siegeAddr(i), DefaultSourceInFlight)
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			for ctx.Err() == nil {
				cut := make(chan struct{})
				var once sync.Once
				rel, _, e := s.acquire(ctx, ad, time.Hour, &watch{cut: func() { once.Do(func() { close(cut) }) }})
				if e != nil {
					return
				}
				select {
				case <-cut:
				case <-ctx.Done():
				}
				rel()
			}
		}()
	}
	t.Cleanup(func() { cancel(); g.wg.Wait() })
	return g
}

// settle waits until every attacker (and extra other requests) is in
// flight or waiting.
func (g *siege) settle(t *testing.T, extra int) {
	t.Helper()
	eventually(t, "the siege to settle", func() bool {
		held, queued := g.s.counts()
		return held+queued == g.n+extra
	})
}

// TestCoalitionOfFreshSourcesCannotStarve: as many IPv4 addresses as
// there are slots, and twice as many, each keeping one scan of a domain
// that never answers in flight (asking again the moment one ends). Were
// each of them fresh whenever its scan had ended, they would hold every
// slot; a new source is admitted within the queue wait (simulated time:
// the clock is a fake one,
// stepped a second at a time with a look for scans to cut at each step),
// once each attacker has had its first turn. The coalition as large as
// the slots runs against the DefaultMaxInFlight slots; both sizes run
// against 128 slots, where the admission's shares of the slots (the
// reserve, reserveOf, and the headroom, nearlyFullOf) are those of the
// default: the scheduler's logic is the same at a quarter of the
// goroutines. The test makes every look for scans to cut itself, on the
// fake clock; the scheduler's real-time cut timer stays disarmed, so that
// no look of its own, every 250 ms of real time, cuts scans while the
// siege settles.
func TestCoalitionOfFreshSourcesCannotStarve(t *testing.T) {
	const fewSlots = 128
	require.Equal(t, reserveOf(DefaultMaxInFlight)*fewSlots, reserveOf(fewSlots)*DefaultMaxInFlight, "the reserve's share")
	require.Equal(t, nearlyFullOf(DefaultMaxInFlight)*fewSlots, nearlyFullOf(fewSlots)*DefaultMaxInFlight, "the headroom's share")
	for _, c := range []struct{ slots, n int }{
		{DefaultMaxInFlight, DefaultMaxInFlight},
		{fewSlots, fewSlots},
		{fewSlots, 2 * fewSlots},
	} {
		slots, n := c.slots, c.n
		t.Run(fmt.Sprintf("%d-slots-%d-sources", slots, n), func(t *testing.T) {
			t.Parallel()
			clock := NewTestClock()
			s := newScheduler(slots)
			s.now = clock.Now
			// The test makes the timer's looks itself (cutNow at each
			// step): the real cut timer is never armed, so no look of
			// its own cuts scans while the siege settles.
			s.ticking = true
			g := startSiege(t, s, n)
			g.settle(t, 0)
			step := func(extra int) {
				clock.Advance(time.Second)
				s.cutNow()
				g.settle(t, extra)
			}
			// Every attacker's first turn: n/slots rounds of one
			// noProgressAfter each, and some.
			warm := time.Duration(n/slots+2) * noProgressAfter
			for range int(warm / time.Second) {
				step(0)
			}
			// Visitors over more than usageDecay, so that attackers
			// come back fresh meanwhile.
			visitors := 0
			for v := 0; v*7 < int(usageDecay/time.Second)+60; v++ {
				for range 7 {
					step(0)
				}
				good := admissionFor(netip.AddrFrom4([4]byte{198, 51, 100, byte(v + 1)}), DefaultSourceInFlight)
				type grant struct {
					rel func()
					e   *apiError
				}
				got := make(chan grant, 1)
				go func() {
					rel, _, e := s.acquire(context.Background(), good, time.Hour, nil)
					got <- grant{rel, e}
				}()
				var gr grant
				admitted := false
				for waited := time.Duration(0); ; waited += time.Second {
					eventually(t, "the visitor to be admitted or queued", func() bool {
						select {
						case gr = <-got:
							admitted = true
							return true
						default:
							return s.queuedFor(good.source)
						}
					})
					if admitted || waited >= DefaultQueueWait {
						break
					}
					step(1)
				}
				require.True(t, admitted, "visitor %d (at %v of the siege) was not admitted within the queue wait", v, clock.Now().Sub(NewTestClock().Now()))
				require.Nil(t, gr.e)
				gr.rel()
				visitors++
			}
			assert.Greater(t, visitors, 20)
			s.mu.Lock()
			cuts := s.cuts
			s.mu.Unlock()
			assert.Positive(t, cuts, "the attackers' scans were cut")
		})
	}
}

// TestFreshWaiterFirst: when a slot comes back, a fresh request is
// granted before a backlog of requests from sources that used slots
// recently, and of two fresh ones, the one whose source used less.
func TestFreshWaiterFirst(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(2)
	s.now = clock.Now
	s.reserve = 0
	hostile := admissionFor(netip.MustParseAddr("203.0.113.66"), 10)
	some := admissionFor(netip.MustParseAddr("198.51.100.8"), 10)
	good := admissionFor(netip.MustParseAddr("198.51.100.7"), 10)
	s.usage.add(some.groups, 500*time.Millisecond, clock.Now()) // fresh, but used a little
	var rels []func()
	for range 2 {
		rel, _, e := s.acquire(context.Background(), hostile, time.Minute, nil)
		require.Nil(t, e)
		rels = append(rels, rel)
	}
	order := make(chan string, 10)
	var wg sync.WaitGroup
	ask := func(name string, ad admission) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, _, e := s.acquire(context.Background(), ad, time.Minute, nil)
			if e != nil {
				order <- "refused " + name
				return
			}
			order <- name
			rel()
		}()
	}
	for i := range 3 {
		ask(fmt.Sprint("hostile", i), hostile)
		eventually(t, "the request to queue", func() bool { return s.waiting() == i+1 })
	}
	ask("some", some)
	eventually(t, "the request to queue", func() bool { return s.waiting() == 4 })
	ask("good", good)
	eventually(t, "the request to queue", func() bool { return s.waiting() == 5 })
	rels[0]()
	assert.Equal(t, "good", <-order, "the fresh request whose source used nothing goes first")
	assert.Equal(t, "some", <-order, "then the other fresh one")
	rels[1]()
	wg.Wait()
}

// TestRecentUseIsNotFresh: a source with nothing in flight but a
// diagnostic held for seconds a moment ago may not take the reserve;
// once its slot time has decayed under freshLimit it may again.
func TestRecentUseIsNotFresh(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(4) // 2 of them reserved
	s.now = clock.Now
	a := admissionFor(netip.MustParseAddr("203.0.113.9"), DefaultSourceInFlight)
	rel, idle, e := s.acquire(context.Background(), a, time.Millisecond, nil)
	require.Nil(t, e)
	assert.True(t, idle)
	clock.Advance(noProgressAfter)
	rel()
	// Two others hold the shared half.
	for _, o := range []string{"198.51.100.1", "198.51.100.2"} {
		_, _, e := s.acquire(context.Background(), admissionFor(netip.MustParseAddr(o), DefaultSourceInFlight), time.Millisecond, nil)
		require.Nil(t, e)
	}
	_, _, e = s.acquire(context.Background(), a, time.Millisecond, nil)
	require.NotNil(t, e, "a source that just held a slot for %v is not fresh: the reserve is not for it", noProgressAfter)
	clock.Advance(2 * usageDecay) // 3 s × e^-2 < 1 s
	rel2, _, e := s.acquire(context.Background(), a, time.Millisecond, nil)
	require.Nil(t, e, "fresh again once its slot time decayed")
	rel2()
}

// TestNoProgressCut: while the pool is nearly full (or a request waits),
// the diagnostics with no DNS reply for noProgressAfter are cut, longest
// without one first, as many as it takes to leave the pool no longer
// nearly full; one that had a reply lately is not; and nothing is cut
// while slots are plentiful.
func TestNoProgressCut(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(4)
	s.now = clock.Now
	var mu sync.Mutex
	cut := map[string]bool{}
	replied := map[string]time.Time{}
	w := func(name string) *watch {
		return &watch{
			lastReply: func() time.Time { mu.Lock(); defer mu.Unlock(); return replied[name] },
			cut:       func() { mu.Lock(); defer mu.Unlock(); cut[name] = true },
		}
	}
	wasCut := func(name string) bool { mu.Lock(); defer mu.Unlock(); return cut[name] }
	var rels []func()
	for i, name := range []string{"old", "newer", "moving", "other"} {
		rel, _, e := s.acquire(context.Background(), admissionFor(netip.AddrFrom4([4]byte{203, 0, 113, byte(i + 1)}), 3), time.Millisecond, w(name))
		require.Nil(t, e)
		rels = append(rels, rel)
		clock.Advance(time.Second)
	}
	// now = start + 4 s: old started 4 s ago, newer 3 s, moving 2 s (but
	// replied 1 s after it started: no reply for 1 s), other 1 s ago.
	mu.Lock()
	replied["moving"] = clock.Now().Add(-time.Second)
	mu.Unlock()
	s.cutNow()
	assert.True(t, wasCut("old"), "the pool is full: the scan with no reply for longest is cut")
	assert.True(t, wasCut("newer"), "stalled for noProgressAfter: cut too, so that the pool is no longer nearly full")
	assert.False(t, wasCut("moving"), "a reply a second ago: not cut")
	assert.False(t, wasCut("other"), "started a second ago: not cut")

	// The cut scans' slots came back at once (their scans wind down
	// outside the pool): a new request is admitted without waiting.
	good := admissionFor(netip.MustParseAddr("198.51.100.7"), 3)
	rel, _, e := s.acquire(context.Background(), good, time.Millisecond, nil)
	require.Nil(t, e, "the slot of a cut scan is free at once")
	rel()
	for _, r := range rels {
		r() // a cut scan's own release gives nothing back twice
	}
	s.mu.Lock()
	free := s.free
	s.mu.Unlock()
	assert.Equal(t, 4, free)

	// Plenty of free slots and nobody waiting: no cut, however long.
	big := newScheduler(DefaultMaxInFlight)
	big.now = clock.Now
	rel, _, e = big.acquire(context.Background(), admissionFor(netip.MustParseAddr("203.0.113.50"), 3), time.Millisecond, w("alone"))
	require.Nil(t, e)
	clock.Advance(time.Minute)
	big.cutNow()
	assert.False(t, wasCut("alone"))
	rel()
}

// TestVisitorScanNotCutForUnusableWaiters: the scans holding every slot
// but one keep getting DNS replies (an attacker's dripping answers: never
// candidates for the cut); the last slot holds a visitor's scan that had
// its first replies and then none for noProgressAfter (a slow MTA-STS
// fetch, one slow name server). It is not cut to keep the pool from being
// nearly full, nor for a waiting request that could not take the slot
// (its source at its in-flight cap) or may not take the reserve (not
// fresh); it is cut for a fresh waiting request, which gets the slot.
func TestVisitorScanNotCutForUnusableWaiters(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(DefaultMaxInFlight)
	s.now = clock.Now
	drip := func() time.Time { return clock.Now() } // always just replied
	atk := admissionFor(netip.MustParseAddr("203.0.113.1"), DefaultSourceInFlight)
	for i := range DefaultMaxInFlight - 1 {
		ad := admissionFor(siegeAddr(i), DefaultSourceInFlight)
		if i < DefaultSourceInFlight {
			ad = atk // the first source at its cap
		}
		_, _, e := s.acquire(context.Background(), ad, 0, &watch{lastReply: drip, cut: func() {}})
		require.Nil(t, e)
	}
	var mu sync.Mutex
	visitorCut := false
	wasCut := func() bool { mu.Lock(); defer mu.Unlock(); return visitorCut }
	firstReply := clock.Now()
	vis := admissionFor(netip.MustParseAddr("198.51.100.7"), DefaultSourceInFlight)
	rel, _, e := s.acquire(context.Background(), vis, 0, &watch{
		lastReply: func() time.Time { return firstReply },
		cut:       func() { mu.Lock(); visitorCut = true; mu.Unlock() },
	})
	require.Nil(t, e)
	defer rel()
	clock.Advance(noProgressAfter)
	s.cutNow()
	assert.False(t, wasCut(), "the pool is full but nobody waits: a scan that had replies is not cut for headroom")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.acquire(ctx, atk, time.Hour, nil) // over its own cap: it just waits
	eventually(t, "the request to queue", func() bool { return s.waiting() == 1 })
	go s.acquire(ctx, admissionFor(netip.MustParseAddr("203.0.113.5"), DefaultSourceInFlight), time.Hour, nil) // not fresh
	eventually(t, "the request to queue", func() bool { return s.waiting() == 2 })
	s.cutNow()
	assert.False(t, wasCut(), "no waiting request could take the visitor's slot")

	newcomer := admissionFor(netip.MustParseAddr("198.51.100.8"), DefaultSourceInFlight)
	granted := make(chan struct{})
	go func() {
		if rel, _, e := s.acquire(ctx, newcomer, time.Hour, nil); e == nil {
			rel()
			close(granted)
		}
	}()
	<-granted
	assert.True(t, wasCut(), "a fresh waiting request cuts the scan with no reply for longest")
}

// TestCutContext: a cut ends the context as its deadline would, so a scan
// reports what it has instead of failing as canceled; contexts derived
// from it end with it; values pass through.
func TestCutContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")
	c := newCutContext(parent)
	c.setDeadline(time.Hour)
	child, cancel := context.WithTimeout(c, time.Hour)
	defer cancel()
	assert.Equal(t, "v", child.Value(key{}))
	dl, ok := child.Deadline()
	require.True(t, ok)
	assert.WithinDuration(t, time.Now().Add(time.Hour), dl, time.Minute)
	require.NoError(t, child.Err())
	c.cut()
	<-child.Done()
	assert.ErrorIs(t, c.Err(), context.DeadlineExceeded)
	assert.ErrorIs(t, child.Err(), context.DeadlineExceeded, "a derived context ends as at its deadline, not as canceled")
	c.cancel()
	assert.ErrorIs(t, c.Err(), context.DeadlineExceeded, "the first end stays")

	p2, stop := context.WithCancel(context.Background())
	c2 := newCutContext(p2)
	stop()
	<-c2.Done()
	assert.ErrorIs(t, c2.Err(), context.Canceled, "the parent's cancellation passes through")

	c3 := newCutContext(context.Background())
	c3.setDeadline(time.Millisecond)
	<-c3.Done()
	assert.ErrorIs(t, c3.Err(), context.DeadlineExceeded)
}

// TestQuickScansStayFresh: a visitor scanning often, each scan quick
// (under quickHold), stays fresh: only slow slot time counts.
func TestQuickScansStayFresh(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(4)
	s.now = clock.Now
	a := admissionFor(netip.MustParseAddr("198.51.100.7"), DefaultSourceInFlight)
	for range 30 {
		rel, _, e := s.acquire(context.Background(), a, time.Millisecond, nil)
		require.Nil(t, e)
		clock.Advance(900 * time.Millisecond)
		rel()
		clock.Advance(time.Second)
	}
	s.mu.Lock()
	fresh := s.fresh(a, clock.Now())
	s.mu.Unlock()
	assert.True(t, fresh, "30 scans of 0.9 s each in a minute")
}

// TestStalledScanCutEndsAsDeadline: end to end, a scan that gets no DNS
// reply while the pool is full (one slot) has its deadline cut long
// before the deadline it was given, and its context ends as at a
// deadline, not as canceled, so that the scan reports what it has: the
// client gets the 200 answer.
func TestStalledScanCutEndsAsDeadline(t *testing.T) {
	t.Parallel()
	type end struct {
		err   error
		early bool
	}
	ended := make(chan end, 1)
	svc := &FakeService{ScanFunc: func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		<-ctx.Done()
		dl, _ := ctx.Deadline()
		ended <- end{ctx.Err(), time.Now().Before(dl)}
		return SampleScanSummary(), nil
	}}
	ts := NewTestServer(t, svc, Options{MaxInFlight: 1})
	assert.Equal(t, http.StatusOK, ts.PostJSON(t, "/api/scan", scanBody("example.com")).StatusCode)
	e := <-ended
	assert.ErrorIs(t, e.err, context.DeadlineExceeded, "a cut ends the context as a deadline would")
	assert.True(t, e.early, "cut before the deadline it was given: no reply for %v with the pool full", noProgressAfter)
}
