package resolver

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTombQueueReleasesWhenDue: in fake time, each lookup's tombstones
// stay registered until their time is up, not a moment less, and go
// then, in the order buried; one buried with a shorter time behind a
// longer one goes with it, never before its own time.
func TestTombQueueReleasesWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A socket with no descriptor, marked closed so that releasing
		// its last query does not close it again.
		s := &socket{closed: true}
		for _, id := range []uint16{1, 2, 3, 99} {
			s.pending = append(s.pending, pendingQuery{id: id, e: entry{tomb: id != 99}})
		}
		held := func(id uint16) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.find(id) >= 0
		}
		var q tombQueue
		q.add(2*time.Second, []ticket{{s: s, id: 1}})
		time.Sleep(time.Second)
		q.add(2*time.Second, []ticket{{s: s, id: 2}})
		q.add(time.Second/2, []ticket{{s: s, id: 3}}) // behind 2, which falls due later
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		assert.True(t, held(1), "1 released before its time")
		assert.True(t, held(3), "3 released before 1, ahead of it")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.False(t, held(1), "1 kept past its time")
		assert.True(t, held(2), "2 released before its time")
		assert.True(t, held(3), "3 released before 2, ahead of it")
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		assert.True(t, held(2), "2 released before its time")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.False(t, held(2), "2 kept past its time")
		assert.False(t, held(3), "3 kept past 2's time")
		assert.True(t, held(99), "the keeper is not a tombstone")
		q.add(time.Second, []ticket{{s: s, id: 99}})
		time.Sleep(time.Second)
		synctest.Wait()
		assert.False(t, held(99), "the timer is set again once the queue emptied")
	})
}

// hookCatcher is a TTLResolver that answers every question with one A
// record and keeps the cacheHook of the last lookup's context, as a
// Client does for the tombstones of a lookup that took a UDP answer.
type hookCatcher struct {
	mu   sync.Mutex
	hook *cacheHook
}

func (h *hookCatcher) Lookup(ctx context.Context, name string, qtype Type) Answer {
	a, _ := h.LookupTTL(ctx, name, qtype)
	return a
}

func (h *hookCatcher) LookupTTL(ctx context.Context, name string, _ Type) (Answer, uint32) {
	h.mu.Lock()
	h.hook = hookOf(ctx)
	h.mu.Unlock()
	return Answer{Outcome: Found, Rcode: 0, Records: []Record{{Name: name, Type: TypeA, TTL: 300, Addr: netip.MustParseAddr("192.0.2.1")}}}, 300
}

// TestHookLetsGoOfFlight: the hook a lookup keeps for its tombstones
// lets go of the Cache's flight once the answer is kept, and a
// contradiction through it still evicts the answer; a contradiction
// before the answer is kept keeps it from being stored.
func TestHookLetsGoOfFlight(t *testing.T) {
	t.Parallel()
	below := &hookCatcher{}
	c := NewCache(below, 0)
	a := c.Lookup(t.Context(), "a.example.test", TypeA)
	require.Equal(t, Found, a.Outcome)
	h := below.hook
	require.NotNil(t, h)
	c.mu.Lock()
	f := h.f
	c.mu.Unlock()
	assert.Nil(t, f, "the hook still holds the flight after its answer was kept")
	require.Equal(t, 1, c.Stats().Entries)
	h.conflict()
	assert.Equal(t, 0, c.Stats().Entries, "a contradiction after the answer was kept did not evict it")
	assert.Equal(t, uint64(1), c.Stats().Invalidated)

	// A contradiction while the flight is under way: its answer is not stored.
	early := &earlyConflict{}
	c2 := NewCache(early, 0)
	require.Equal(t, Found, c2.Lookup(t.Context(), "b.example.test", TypeA).Outcome)
	assert.Equal(t, 0, c2.Stats().Entries, "an answer contradicted before it was kept was stored")
}

// earlyConflict is a TTLResolver whose every answer is contradicted
// (through its lookup's hook) before it is handed back.
type earlyConflict struct{}

func (e *earlyConflict) Lookup(ctx context.Context, name string, qtype Type) Answer {
	a, _ := e.LookupTTL(ctx, name, qtype)
	return a
}

func (e *earlyConflict) LookupTTL(ctx context.Context, name string, _ Type) (Answer, uint32) {
	if h := hookOf(ctx); h != nil {
		h.conflict()
	}
	return Answer{Outcome: Found, Records: []Record{{Name: name, Type: TypeA, TTL: 300, Addr: netip.MustParseAddr("192.0.2.1")}}}, 300
}
