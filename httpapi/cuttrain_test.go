package httpapi

import (
	"context"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadroomCutsComeInSmallBatches: every default slot is held by a
// scan that never had a reply. Each look cuts at most headroomCuts of
// them for headroom, so the slots come back over a few looks, not as one
// train that the queued requests would all take in the same millisecond;
// fresh waiting requests are still cut for at once, however many.
func TestHeadroomCutsComeInSmallBatches(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	s := newScheduler(DefaultMaxInFlight)
	s.now = clock.Now
	// The test makes the looks itself: the cut timer is never armed.
	s.ticking = true
	var cuts atomic.Int64
	for i := range DefaultMaxInFlight {
		ad := admissionFor(siegeAddr(i), DefaultSourceInFlight)
		_, _, e := s.acquire(context.Background(), ad, 0, &watch{cut: func() { cuts.Add(1) }})
		require.Nil(t, e)
	}
	clock.Advance(noProgressAfter)
	want := nearlyFullOf(DefaultMaxInFlight) + 1 // to leave the pool no longer nearly full
	looks := 0
	for cuts.Load() < int64(want) {
		before := cuts.Load()
		s.cutNow()
		looks++
		assert.LessOrEqual(t, cuts.Load()-before, int64(headroomCuts), "look %d", looks)
		require.Less(t, looks, 100, "the headroom never came back")
	}
	assert.Equal(t, int64(want), cuts.Load(), "as many cut as the headroom needs, no more")
	assert.Greater(t, looks, 1, "the headroom came back over several looks")
	s.cutNow()
	assert.Equal(t, int64(want), cuts.Load(), "headroom back: nothing more is cut")

	// A fresh request that arrives now is cut for at once (the look its
	// enqueueing makes), whatever the cap.
	for i := range want {
		ad := admissionFor(siegeAddr(DefaultMaxInFlight+i), DefaultSourceInFlight)
		_, _, e := s.acquire(context.Background(), ad, 0, &watch{cut: func() { cuts.Add(1) }})
		require.Nil(t, e)
	}
	clock.Advance(noProgressAfter)
	before := cuts.Load()
	for i := range 3 * headroomCuts {
		ad := admissionFor(netip.AddrFrom4([4]byte{198, 51, 100, byte(1 + i)}), DefaultSourceInFlight)
		_, _, e := s.acquire(context.Background(), ad, time.Minute, nil)
		require.Nil(t, e, "fresh request %d is admitted", i)
	}
	assert.GreaterOrEqual(t, cuts.Load()-before, int64(3*headroomCuts), "a scan was cut for each fresh request")
}
