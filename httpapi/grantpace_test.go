package httpapi

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// paceSiege fills every slot of s, the half beyond the reserve first
// with sources that have used a budget's worth of slow slot time lately
// (so are not fresh), the reserve then with fresh ones; it queues one
// request for each of n more sources that are not fresh. It returns the
// release funcs of the slots beyond the reserve and of the reserve's, and
// a channel that receives each queued request's release func once it is
// granted.
func paceSiege(t *testing.T, s *scheduler, n int) (used, reserve []func(), granted chan func()) {
	t.Helper()
	spent := func(i int) admission {
		ad := admissionFor(siegeAddr(i), DefaultSourceInFlight)
		s.mu.Lock()
		s.usage.add(ad.groups, DefaultSourceBudget, s.now())
		s.mu.Unlock()
		return ad
	}
	gap := s.gap
	s.gap = 0 // the fill is no train
	for i := range s.total {
		ad := admissionFor(siegeAddr(i), DefaultSourceInFlight)
		if i < s.total-s.reserve {
			ad = spent(i)
		}
		rel, _, e := s.acquire(context.Background(), ad, 0, nil)
		require.Nil(t, e, "slot %d", i)
		if i < s.total-s.reserve {
			used = append(used, rel)
		} else {
			reserve = append(reserve, rel)
		}
	}
	s.gap = gap
	granted = make(chan func(), n)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // the requests still waiting give up
	for i := range n {
		ad := spent(s.total + i)
		go func() {
			rel, _, e := s.acquire(ctx, ad, time.Hour, nil)
			if e == nil {
				granted <- rel
			}
		}()
	}
	require.Eventually(t, func() bool { return s.waiting() == n }, 10*time.Second, time.Millisecond)
	return used, reserve, granted
}

// TestPaceHoldsBackATrainOfGrants: slots that come back at once, while
// requests that are not fresh wait, are not all granted at once: one
// burst within the gap (here an hour), the rest held, their slots free; a fresh
// request arriving meanwhile is admitted at once.
func TestPaceHoldsBackATrainOfGrants(t *testing.T) {
	t.Parallel()
	s := newScheduler(64)
	s.gap = time.Hour
	used, reserve, granted := paceSiege(t, s, 20)
	for _, rel := range reserve {
		rel() // the reserve is for fresh requests only
	}
	assert.Equal(t, 20, s.waiting())
	for _, rel := range used[:20] {
		rel()
	}
	for range grantBurst {
		rel := <-granted
		defer rel()
	}
	assert.Equal(t, 20-grantBurst, s.waiting(), "a burst's worth granted, the rest of the train held back")
	s.mu.Lock()
	assert.Equal(t, s.reserve+20-grantBurst, s.free, "the held-back requests' slots stay free")
	s.mu.Unlock()
	assert.Empty(t, granted)

	visitor := admissionFor(netip.MustParseAddr("198.51.100.7"), DefaultSourceInFlight)
	vrel, _, e := s.acquire(context.Background(), visitor, 0, nil)
	require.Nil(t, e, "a fresh request is admitted at once, whatever the pace")
	vrel()

	other := admissionFor(siegeAddr(1000), DefaultSourceInFlight)
	s.mu.Lock()
	s.usage.add(other.groups, DefaultSourceBudget, s.now())
	s.mu.Unlock()
	_, _, e = s.acquire(context.Background(), other, 0, nil)
	require.NotNil(t, e, "a request that is not fresh waits its turn behind the others")
}

// TestPaceGrantsEveryWaitingRequest: with the default gap the held-back
// train is granted in full, one at a time, by the pace timer, with no
// release to drive it; the pace charges nothing to a pool that is not
// busy.
func TestPaceGrantsEveryWaitingRequest(t *testing.T) {
	t.Parallel()
	s := newScheduler(64)
	require.Equal(t, grantGap, s.gap, "the default pace")
	used, reserve, granted := paceSiege(t, s, 30)
	for _, rel := range reserve {
		rel()
	}
	for _, rel := range used[:30] {
		rel()
	}
	var rels []func()
	for i := range 30 {
		select {
		case rel := <-granted:
			rels = append(rels, rel)
		case <-time.After(time.Minute):
			require.Failf(t, "a held-back request was never granted", "%d of 30 granted", i)
		}
	}
	assert.Zero(t, s.waiting())

	// Not busy (under a quarter of the slots in flight): requests that are
	// not fresh are admitted back to back, the pace untouched.
	for _, rel := range append(rels, used[30:]...) {
		rel()
	}
	s.mu.Lock()
	before := s.paced
	s.mu.Unlock()
	for i := range 2 {
		ad := admissionFor(siegeAddr(2000+i), DefaultSourceInFlight)
		s.mu.Lock()
		s.usage.add(ad.groups, DefaultSourceBudget, s.now())
		s.mu.Unlock()
		rel, _, e := s.acquire(context.Background(), ad, 0, nil)
		require.Nil(t, e)
		defer rel()
	}
	s.mu.Lock()
	assert.Equal(t, before, s.paced)
	s.mu.Unlock()
}
