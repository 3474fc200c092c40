package httpapi

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// spentAdmission returns the admission of a, charged a budget's worth of
// slow slot time (not fresh for minutes).
func spentAdmission(s *scheduler, a netip.Addr) admission {
	ad := admissionFor(a, DefaultSourceInFlight)
	s.mu.Lock()
	s.usage.add(ad.groups, DefaultSourceBudget, s.now())
	s.mu.Unlock()
	return ad
}

// paceLostWakeup reports, with mu held, a free slot that a waiting
// request could take now while no pace timer is armed to grant it.
func (s *scheduler) paceLostWakeup() bool {
	if s.free <= 0 || len(s.ring) == 0 {
		return false
	}
	now := s.now()
	if s.freshest(now) >= 0 {
		return true // a fresh waiter and a free slot: dispatch grants at once
	}
	return s.nextAdmissible(now) >= 0 && !s.pacing
}

// TestAttackPaceNoLostWakeup: many sources, fresh and not, acquire,
// hold briefly, give up (timeouts, cancellations) at random while the
// pace runs; a watcher checks at every look that no free slot is left
// to a waiting request that may take it without a pace timer armed.
func TestAttackPaceNoLostWakeup(t *testing.T) {
	s := newScheduler(64)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var bad atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			s.mu.Lock()
			if s.paceLostWakeup() {
				bad.Add(1)
			}
			s.mu.Unlock()
			time.Sleep(50 * time.Microsecond)
		}
	}()
	var grants atomic.Int64
	for w := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			var ad admission
			if w%4 == 0 {
				ad = admissionFor(netip.AddrFrom4([4]byte{198, 51, 100, byte(w)}), DefaultSourceInFlight)
			} else {
				ad = spentAdmission(s, siegeAddr(w%120))
			}
			for ctx.Err() == nil {
				rctx, rcancel := context.WithTimeout(ctx, time.Duration(r.IntN(3000))*time.Microsecond)
				rel, _, e := s.acquire(rctx, ad, time.Duration(r.IntN(4000))*time.Microsecond, nil)
				rcancel()
				if e == nil {
					grants.Add(1)
					time.Sleep(time.Duration(r.IntN(2000)) * time.Microsecond)
					rel()
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d grants", grants.Load())
	require.Zero(t, bad.Load(), "looks that found a slot left free to a waiting request with no pace timer armed")
	// The end: nobody waits, every slot is back.
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Zero(t, s.queued)
	require.Equal(t, s.total, s.free)
	require.False(t, s.paceLostWakeup())
}

// TestAttackPaceEngagedWithSlotsPlenty: one source at its in-flight cap
// with one more request waiting (which no slot can serve) must not put
// the scheduler under the pace while the pool is far from busy (509 of
// 512 slots free): the second requests of other clients (not fresh: one
// diagnostic in flight each) are admitted at once. The gap is an hour,
// as in TestPaceHoldsBackATrainOfGrants, so that a pace engaged by
// mistake would refuse them, with no timing in the test.
func TestAttackPaceEngagedWithSlotsPlenty(t *testing.T) {
	s := newScheduler(DefaultMaxInFlight)
	s.gap = time.Hour
	a := spentAdmission(s, siegeAddr(0))
	for range DefaultSourceInFlight {
		rel, _, e := s.acquire(context.Background(), a, 0, nil)
		require.Nil(t, e)
		defer rel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _, _ = s.acquire(ctx, a, time.Hour, nil) }() // at its cap: waits
	require.Eventually(t, func() bool { return s.waiting() == 1 }, 10*time.Second, time.Millisecond)

	for i := range 2 {
		ad := admissionFor(siegeAddr(1+i), DefaultSourceInFlight)
		first, _, e := s.acquire(context.Background(), ad, 0, nil) // fresh: at once
		require.Nil(t, e)
		defer first()
	}
	s.mu.Lock()
	free := s.free
	s.mu.Unlock()
	require.Greater(t, free, s.reserve+nearlyFullOf(s.total), "slots do not run short")
	for i := range 2 {
		ad := admissionFor(siegeAddr(1+i), DefaultSourceInFlight)
		second, _, e := s.acquire(context.Background(), ad, 100*time.Millisecond, nil)
		require.Nil(t, e, "client %d's second request with %d of %d slots free and none of its groups at a cap", i, free, s.total)
		defer second()
	}
}
