package httpapi

import (
	"context"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestsOf is how many times m was asked to return memory.
func requestsOf(m *MemoryReturner) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// TestLimiterTableReturnsMemory: a limiter's table that held
// returnMemoryMin addresses or more asks its injected returner for the
// memory back once a sweep leaves it at an eighth of that or less, empty
// or not (the good clients' windows stay open after a spray's end); a
// smaller table, or one that keeps more, does not.
func TestLimiterTableReturnsMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		keys, stay int
		want       int
	}{
		{"spray", returnMemoryMin, 0, 1},
		{"spray, an eighth stays", returnMemoryMin, returnMemoryMin / 8, 1},
		{"spray, more stays", returnMemoryMin, returnMemoryMin/8 + 1, 0},
		{"small", 100, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ret, clock := &MemoryReturner{}, NewTestClock()
			l := NewMemoryLimiter(MemoryLimiterOptions{Window: time.Minute, Now: clock.Now, MemoryReturner: ret})
			for i := range tc.keys - tc.stay {
				_, err := l.Allow(context.Background(), strconv.Itoa(i))
				require.NoError(t, err)
			}
			clock.Advance(time.Minute / 2)
			for i := range tc.stay {
				_, err := l.Allow(context.Background(), "stay"+strconv.Itoa(i))
				require.NoError(t, err)
			}
			clock.Advance(time.Minute / 2)
			l.mu.Lock()
			l.table.sweep(clock.Now())
			l.mu.Unlock()
			assert.Equal(t, tc.stay, l.Len())
			assert.Equal(t, tc.want, requestsOf(ret))
		})
	}
}

// TestMemoryReturnerWiring: the returner given in the options reaches
// every table of the handler, the limiters New builds, the listener and
// the fallback limiter's in-memory tables; left nil, the handler's tables
// share one of their own.
func TestMemoryReturnerWiring(t *testing.T) {
	t.Parallel()
	tablesOf := func(h *handler) []*MemoryReturner {
		out := []*MemoryReturner{h.budgets.table.ret, h.limiter.(*MemoryLimiter).table.ret, h.sched.ret}
		for _, n := range h.networks {
			out = append(out, n.Limiter.(*MemoryLimiter).table.ret)
		}
		return out
	}
	ret := &MemoryReturner{}
	for _, got := range tablesOf(newHandler(&FakeService{}, Options{MemoryReturner: ret})) {
		assert.Same(t, ret, got)
	}
	own := tablesOf(newHandler(&FakeService{}, Options{}))
	require.NotNil(t, own[0])
	for _, got := range own {
		assert.Same(t, own[0], got, "the handler's tables do not share one returner")
	}

	assert.Same(t, ret, LimitListener(nil, ListenerOptions{MemoryReturner: ret}).memReturn)
	assert.NotNil(t, LimitListener(nil, ListenerOptions{}).memReturn)

	f := NewFallbackLimiter(&switchLimiter{mem: NewMemoryLimiter(MemoryLimiterOptions{})}, FallbackOptions{MemoryReturner: ret})
	defer f.Close()
	assert.Same(t, ret, f.fallback.(*MemoryLimiter).table.ret)
	for _, n := range f.NetworkLimits(5) {
		assert.Same(t, ret, n.Limiter.(*FallbackLimiter).fallback.(*MemoryLimiter).table.ret)
	}
}

// TestBurstOfScansReturnsMemory: diagnostics in flight that fall from
// returnMemoryScans (the default, not set here) or more to an eighth of
// their peak ask the returner for the memory back, once; a smaller
// burst, and the fall after that return, do not.
func TestBurstOfScansReturnsMemory(t *testing.T) {
	t.Parallel()
	ret := &MemoryReturner{}
	s := newHandler(&FakeService{}, Options{MemoryReturner: ret}).sched
	require.Same(t, ret, s.ret)
	take := func(n int) []*slot {
		s.mu.Lock()
		defer s.mu.Unlock()
		var out []*slot
		for i := range n {
			ad := admissionFor(netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}), DefaultSourceInFlight)
			sl, _ := s.take(ad, nil)
			out = append(out, sl)
		}
		return out
	}
	give := func(sls []*slot) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, sl := range sls {
			s.giveBack(sl)
		}
	}

	small := take(returnMemoryScans - 1)
	give(small)
	assert.Zero(t, requestsOf(ret), "a burst under returnMemoryScans returns nothing")

	burst := take(returnMemoryScans)
	keep := returnMemoryScans / 8
	give(burst[:returnMemoryScans-keep-1])
	assert.Zero(t, requestsOf(ret), "more than an eighth still in flight")
	give(burst[returnMemoryScans-keep-1 : returnMemoryScans-keep])
	assert.Equal(t, 1, requestsOf(ret), "the fall to an eighth of the peak")
	give(burst[returnMemoryScans-keep:])
	assert.Equal(t, 1, requestsOf(ret), "the rest of the burst ends after its return")
}
