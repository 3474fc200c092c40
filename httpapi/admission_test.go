package httpapi

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fillFrom takes every slot the sources' admissions can get right now,
// perSource requests each, without waiting, and returns the releases.
func fillFrom(t *testing.T, s *scheduler, addrs []netip.Addr, perSource int) []func() {
	t.Helper()
	var rels []func()
	for _, a := range addrs {
		ad := admissionFor(a, DefaultSourceInFlight)
		for range perSource {
			if rel, _, e := s.acquire(context.Background(), ad, time.Millisecond, nil); e == nil {
				rels = append(rels, rel)
			}
		}
	}
	return rels
}

// assertFreshServed checks that a source with nothing in flight gets a
// slot at once while the coalition holds what it could take.
func assertFreshServed(t *testing.T, s *scheduler, held []func()) {
	t.Helper()
	good := admissionFor(netip.MustParseAddr("198.51.100.7"), DefaultSourceInFlight)
	rel, fresh, e := s.acquire(context.Background(), good, time.Millisecond, nil)
	if !assert.Nil(t, e, "a source with nothing in flight was refused while %d slots were held", len(held)) {
		return
	}
	assert.True(t, fresh, "the good source's slot should count as fresh")
	rel()
	for _, r := range held {
		r()
	}
	assert.Equal(t, DefaultMaxInFlight, s.free, "every slot given back")
}

// TestCoalitionOfIPv4SourcesCannotStarve: IPv4 addresses running 3
// diagnostics each, enough of them to ask for more than every slot (a
// third of the slots were once enough to hold them all), leave a slot for
// a source with nothing in flight.
func TestCoalitionOfIPv4SourcesCannotStarve(t *testing.T) {
	t.Parallel()
	s := newScheduler(DefaultMaxInFlight)
	n := DefaultMaxInFlight/2 - 2 // 254 of 512 slots
	require.Greater(t, n*DefaultSourceInFlight, DefaultMaxInFlight)
	var addrs []netip.Addr
	for i := range n {
		addrs = append(addrs, siegeAddr(i))
	}
	held := fillFrom(t, s, addrs, DefaultSourceInFlight)
	assert.LessOrEqual(t, len(held), n+DefaultMaxInFlight-reserveOf(DefaultMaxInFlight),
		"the coalition holds at most one reserved slot per address")
	assertFreshServed(t, s, held)
}

// TestCoalitionOfIPv6NetworksCannotStarve: IPv6 /48s, each spread over
// 8 /64s in 4 /56s running 3 diagnostics each, enough /48s to ask for
// more than every slot (43 for 512 slots), leave a slot for a source with
// nothing in flight.
func TestCoalitionOfIPv6NetworksCannotStarve(t *testing.T) {
	t.Parallel()
	s := newScheduler(DefaultMaxInFlight)
	nets := DefaultMaxInFlight/networkInFlight48 + 1 // 43 for 512 slots
	var addrs []netip.Addr
	for n := range nets {
		for i := range 8 {
			addrs = append(addrs, netip.MustParseAddr(fmt.Sprintf("2001:db8:%x:%x%02x::1", n+1, i/2, i)))
		}
	}
	held := fillFrom(t, s, addrs, DefaultSourceInFlight)
	assert.LessOrEqual(t, len(held), nets+DefaultMaxInFlight-reserveOf(DefaultMaxInFlight),
		"the coalition holds at most one reserved slot per /48")
	assertFreshServed(t, s, held)
}

// TestLaterDiagnosticsAreNotFresh: a source's first diagnostic is fresh,
// its second is not (it gets the shorter deadline), and once both ended
// it is fresh again.
func TestLaterDiagnosticsAreNotFresh(t *testing.T) {
	t.Parallel()
	s := newScheduler(8)
	ad := admissionFor(netip.MustParseAddr("2001:db8:1:100::1"), DefaultSourceInFlight)
	other := admissionFor(netip.MustParseAddr("2001:db8:1:200::1"), DefaultSourceInFlight) // same /48
	r1, f1, e := s.acquire(context.Background(), ad, time.Millisecond, nil)
	require.Nil(t, e)
	r2, f2, e := s.acquire(context.Background(), other, time.Millisecond, nil)
	require.Nil(t, e)
	assert.True(t, f1)
	assert.False(t, f2, "a /64 of a /48 with a diagnostic in flight is not fresh")
	r1()
	r2()
	r3, f3, e := s.acquire(context.Background(), ad, time.Millisecond, nil)
	require.Nil(t, e)
	assert.True(t, f3)
	r3()
}

// TestBudgetChargedAtAdmission: two diagnostics admitted at once cannot
// both be given the whole budget: the first is charged its deadline at
// once, so the second finds the budget spent.
func TestBudgetChargedAtAdmission(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	b := newBudgets(10*time.Second, 100, clock.Now, nil)
	groups := admissionFor(netip.MustParseAddr("203.0.113.9"), DefaultSourceInFlight).groups
	c1, _ := b.charge(groups, DefaultSourceInFlight, firstDeadline)
	require.NotNil(t, c1)
	assert.Equal(t, 10*time.Second, c1.granted, "the first gets what is left")
	c2, wait := b.charge(groups, DefaultSourceInFlight, firstDeadline)
	assert.Nil(t, c2, "the second must not get the same budget again")
	assert.Greater(t, wait, time.Duration(0))
	b.refund(c1, 2*time.Second) // it used 2 s of its 10
	c3, _ := b.charge(groups, DefaultSourceInFlight, laterDeadline)
	require.NotNil(t, c3, "the unused part was refunded")
	assert.Equal(t, laterDeadline, c3.granted)
	clock.Advance(DefaultRateWindow)
	assert.Zero(t, b.spent(groups, DefaultSourceInFlight), "a new window")
}

// TestBudgetPerNetwork: the /64s of one /48 share a budget four times a
// source's, so spreading over /64s does not multiply it.
func TestBudgetPerNetwork(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	b := newBudgets(10*time.Second, 1000, clock.Now, nil)
	granted := 0
	for i := range 8 { // 8 /64s in 8 /56s of one /48
		groups := admissionFor(netip.MustParseAddr(fmt.Sprintf("2001:db8:7:%x00::1", i)), DefaultSourceInFlight).groups
		if c, _ := b.charge(groups, DefaultSourceInFlight, 10*time.Second); c != nil {
			granted++
		}
	}
	assert.Equal(t, 4, granted, "a /48 gets four sources' budget")
	other := admissionFor(netip.MustParseAddr("2001:db8:8::1"), DefaultSourceInFlight).groups
	c, _ := b.charge(other, DefaultSourceInFlight, 10*time.Second)
	assert.NotNil(t, c, "another /48 is unaffected")
}

// TestWindowTableSweep: a sweep after a spray drops the expired windows
// and rebuilds the map; the timer sweeps without any further access.
func TestWindowTableSweep(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	l := NewMemoryLimiter(MemoryLimiterOptions{Now: clock.Now, MaxKeys: 1 << 16})
	for i := range 4 * rebuildMin {
		_, err := l.Allow(context.Background(), fmt.Sprint("k", i))
		require.NoError(t, err)
	}
	require.Equal(t, 4*rebuildMin, l.Len())
	clock.Advance(DefaultRateWindow)
	l.mu.Lock()
	l.table.sweep(clock.Now())
	rebuilt, n := l.table.rebuilt, len(l.table.windows)
	l.mu.Unlock()
	assert.Zero(t, n)
	assert.Equal(t, 1, rebuilt, "the map is rebuilt after the spray expired")

	real := NewMemoryLimiter(MemoryLimiterOptions{Window: 10 * time.Millisecond})
	_, err := real.Allow(context.Background(), "k")
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return real.Len() == 0 }, 30*time.Second, 50*time.Millisecond,
		"the timer sweeps an expired window with no further request")
}

// TestDefaultSlots: a handler built with no MaxInFlight admits
// DefaultMaxInFlight diagnostics at once, half of them the reserve of
// fresh sources, and its pool counts as short of slots only at its last
// sixteenth.
func TestDefaultSlots(t *testing.T) {
	t.Parallel()
	h := newHandler(&FakeService{}, Options{})
	assert.Equal(t, 512, DefaultMaxInFlight, "the default the docs' arithmetic is made for")
	assert.Equal(t, DefaultMaxInFlight, h.sched.total, "slots")
	assert.Equal(t, DefaultMaxInFlight, h.sched.free, "free slots")
	assert.Equal(t, DefaultMaxInFlight/2, h.sched.reserve, "reserve")
	assert.Equal(t, DefaultMaxInFlight/16, nearlyFullOf(h.sched.total), "nearly full at")
	assert.Equal(t, DefaultSourceInFlight, h.perSource, "per-source cap")
	assert.Equal(t, DefaultQueueWait, h.wait, "queue wait")
}
