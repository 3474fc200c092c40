package resolver

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/miekg/dns"
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
			s.pending = append(s.pending, entry{id: id, tomb: id != 99})
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

// TestTombQueueSkipsUnsent: a lookup whose attempts all met ICMP errors
// (tickets without a socket) queues nothing and sets no timer.
func TestTombQueueSkipsUnsent(t *testing.T) {
	var q tombQueue
	q.add(time.Second, []ticket{{icmp: new(atomic.Bool)}, {icmp: new(atomic.Bool)}})
	q.mu.Lock()
	defer q.mu.Unlock()
	assert.Empty(t, q.queue)
	assert.False(t, q.armed, "a timer set for nothing")
	assert.Nil(t, q.timer)
}

// TestTombstoneBytes: what each tombstone holds for tombstoneFor stays
// within its budget: under load tens of thousands are held at once (58
// a request in flight at 800 scans a second). Its entry in the
// tombstones' queue (24 bytes: no time.Time, no slice of the lookup's
// tickets), its query's entry on the socket (64, eight to a socket's
// batch), the waiter it keeps for the comparison (96, one size class; the
// Cache's hook held as itself, not in a closure) and the hook (64).
func TestTombstoneBytes(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(tomb{}), uintptr(24), "queue entry")
	assert.LessOrEqual(t, unsafe.Sizeof(entry{}), uintptr(64), "socket entry")
	assert.LessOrEqual(t, unsafe.Sizeof(waiter{}), uintptr(96), "waiter")
	assert.LessOrEqual(t, unsafe.Sizeof(cacheHook{}), uintptr(64), "cache hook")
	assert.Equal(t, 16, answerKeyLen, "the digest kept")
}

// funcTTL is a TTLResolver run by a function.
type funcTTL func(ctx context.Context, name string) (Answer, uint32)

func (f funcTTL) Lookup(ctx context.Context, name string, _ Type) Answer {
	a, _ := f(ctx, name)
	return a
}

func (f funcTTL) LookupTTL(ctx context.Context, name string, _ Type) (Answer, uint32) {
	return f(ctx, name)
}

// foundA is an answer of one A record.
func foundA(name string) Answer {
	return Answer{Outcome: Found, Records: []Record{{Name: name, Type: TypeA, TTL: 300, Addr: netip.MustParseAddr("192.0.2.1")}}}
}

// TestHookLetsGoOfFlight: the hook a lookup keeps for its tombstones
// lets go of the Cache's flight once the answer is kept, and a
// contradiction through it still evicts the answer; a contradiction
// before the answer is kept, or while it is being kept (between the
// taint's reading and the store), keeps it from being stored.
func TestHookLetsGoOfFlight(t *testing.T) {
	t.Parallel()
	var hook atomic.Pointer[cacheHook]
	c := NewCache(funcTTL(func(ctx context.Context, name string) (Answer, uint32) {
		hook.Store(hookOf(ctx))
		return foundA(name), 300
	}), 0)
	require.Equal(t, Found, c.Lookup(t.Context(), "a.example.test", TypeA).Outcome)
	h := hook.Load()
	require.NotNil(t, h)
	c.mu.Lock()
	f := h.f
	c.mu.Unlock()
	assert.Nil(t, f, "the hook still holds the flight after its answer was kept")
	require.Equal(t, 1, c.Stats().Entries)
	h.conflict()
	assert.Equal(t, 0, c.Stats().Entries, "a contradiction after the answer was kept did not evict it")
	assert.Equal(t, uint64(1), c.Stats().Invalidated)

	early := NewCache(funcTTL(func(ctx context.Context, name string) (Answer, uint32) {
		hookOf(ctx).conflict()
		return foundA(name), 300
	}), 0)
	require.Equal(t, Found, early.Lookup(t.Context(), "b.example.test", TypeA).Outcome)
	assert.Equal(t, 0, early.Stats().Entries, "an answer contradicted before it was kept was stored")

	// keep reads the clock outside the Cache's lock, right before it stores.
	var inKeep atomic.Pointer[cacheHook]
	during := NewCache(funcTTL(func(ctx context.Context, name string) (Answer, uint32) {
		inKeep.Store(hookOf(ctx))
		return foundA(name), 300
	}), 0)
	during.now = func() time.Time {
		if h := inKeep.Swap(nil); h != nil {
			h.conflict()
		}
		return time.Now()
	}
	require.Equal(t, Found, during.Lookup(t.Context(), "c.example.test", TypeA).Outcome)
	assert.Equal(t, 0, during.Stats().Entries, "an answer contradicted while it was kept was stored")
}

// flightWatcher is a Client below a Cache that watches the Cache's
// flight of each lookup it is asked for collection.
type flightWatcher struct {
	*Client
	cache              *Cache
	started, collected atomic.Int32
}

func (w *flightWatcher) StartTTL(ctx context.Context, name string, qtype Type, done func(Answer, uint32)) {
	w.cache.mu.Lock()
	f := w.cache.flights[question{name, qtype}]
	w.cache.mu.Unlock()
	w.started.Add(1)
	runtime.AddCleanup(f, func(n *atomic.Int32) { n.Add(1) }, &w.collected)
	w.Client.StartTTL(ctx, name, qtype, done)
}

// TestFlightCollectedDuringTombstones: over a real Client on loopback,
// whose lookups keep their tombstones (an hour here), the Cache's
// flights are collected once their answers are in: the tombstones keep
// no flight.
func TestFlightCollectedDuringTombstones(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	serveDNS(t, &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		_ = w.WriteMsg(replyA(r, "192.0.2.1"))
	})})
	cl := &Client{Servers: []string{pc.LocalAddr().String()}, Timeout: 10 * time.Second, Attempts: 1}
	cl.pool.tombstone = time.Hour
	w := &flightWatcher{Client: cl}
	c := NewCache(w, 0)
	w.cache = c
	for i := range 20 {
		a := c.Lookup(t.Context(), fmt.Sprintf("n%d.example.test", i), TypeA)
		require.Equal(t, Found, a.Outcome, "%v", a)
	}
	require.Eventually(t, func() bool {
		runtime.GC()
		return w.collected.Load() == w.started.Load()
	}, 30*time.Second, 10*time.Millisecond, "flights collected while the tombstones are held: %d of %d", w.collected.Load(), w.started.Load())
}

// twiceStarter breaks the Starter contract: it hands the first answer
// on, and then a second, different one.
type twiceStarter struct{ funcTTL }

func (twiceStarter) StartTTL(_ context.Context, name string, _ Type, done func(Answer, uint32)) {
	done(foundA(name), 300)
	done(Fail(ReasonServFail), 0)
}

// TestHookTakesOneAnswer: a resolver below a Cache that answers a
// question twice gets the first answer stored and handed on, and the
// second call does nothing: no panic (the hook let go of the sender
// after the first), no second store or answer.
func TestHookTakesOneAnswer(t *testing.T) {
	t.Parallel()
	c := NewCache(twiceStarter{}, 0)
	var answers []Answer
	require.NotPanics(t, func() {
		c.Start(t.Context(), "twice.example.test", TypeA, func(a Answer) { answers = append(answers, a) })
	})
	require.Len(t, answers, 1, "answers handed on")
	assert.Equal(t, Found, answers[0].Outcome, "the first answer")
	assert.Equal(t, 1, c.Stats().Entries, "the first answer, stored")
	assert.Equal(t, Found, c.Lookup(t.Context(), "twice.example.test", TypeA).Outcome, "served from the cache")
}
