package httpapi

import (
	"container/list"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agedConns returns n connections in a list, the i-th with a request
// body that began at start(i) (0: none) and nothing of it read.
func agedConns(n int, start func(i int) int64) (*list.List, []*limitedConn) {
	l := list.New()
	cs := make([]*limitedConn, n)
	for i := range cs {
		cs[i] = &limitedConn{}
		cs[i].bodySince.Store(start(i))
		cs[i].all = l.PushBack(cs[i])
	}
	return l, cs
}

// shed removes c from conns as forget does.
func shed(conns *list.List, c *limitedConn) {
	c.gone = true
	conns.Remove(c.all)
}

const sec = int64(time.Second)

// TestAgedCacheOldestDueFirst: the slow bodies come oldest first, from
// one look through the connections for the whole flood of newcomers.
func TestAgedCacheOldestDueFirst(t *testing.T) {
	// Bodies began at 5, 4, 3, 2 and 1 s, in the list's order.
	conns, cs := agedConns(5, func(i int) int64 { return int64(5-i) * sec })
	var a agedCache
	now := 10 * sec
	for want := 4; want >= 0; want-- {
		c := a.next(conns, now, 2*time.Second, bodyAge)
		require.Same(t, cs[want], c, "the body read longest of those left")
		shed(conns, c)
	}
	assert.Equal(t, 1, a.looks, "one look for five sheds")
	assert.Nil(t, a.next(conns, now, 2*time.Second, bodyAge), "none left")
}

// TestAgedCacheFloodLooksOnce: at the slow-body siege's scale (every
// place of the default cap a slow body), shedding them all one newcomer
// at a time looks through the connections once, not once per newcomer.
func TestAgedCacheFloodLooksOnce(t *testing.T) {
	conns, _ := agedConns(DefaultMaxConns, func(i int) int64 { return int64(i+1) * int64(time.Millisecond) })
	var a agedCache
	now := 10 * sec
	for i := range DefaultMaxConns {
		c := a.next(conns, now+int64(i)*int64(time.Microsecond), 2*time.Second, bodyAge)
		require.NotNil(t, c, "shed %d", i)
		require.Equal(t, int64(i+1)*int64(time.Millisecond), c.bodySince.Load(), "oldest first")
		shed(conns, c)
	}
	assert.Equal(t, 1, a.looks)
}

// TestAgedCacheRechecksCandidates: a candidate whose body ended, or gave
// way to another body, or whose connection is gone, is not taken.
func TestAgedCacheRechecksCandidates(t *testing.T) {
	conns, cs := agedConns(4, func(i int) int64 { return int64(i+1) * sec })
	var a agedCache
	now := 10 * sec
	require.Same(t, cs[0], a.next(conns, now, 2*time.Second, bodyAge))
	cs[1].bodySince.Store(0)           // its body ended
	cs[2].bodySince.Store(now - 1)     // a new body began
	cs[3].gone = true                  // closed, not yet out of the list
	cs[0].bodySince.Store(now - sec/2) // the one taken is back, younger
	assert.Nil(t, a.next(conns, now, 2*time.Second, bodyAge), "every candidate changed; the look again finds none due")
	assert.Equal(t, 2, a.looks)
}

// TestAgedCacheNoneBeforeEarliest: when no body is slow, none is looked
// for again before the earliest time one could be, and one is found as
// soon as it is.
func TestAgedCacheNoneBeforeEarliest(t *testing.T) {
	conns, cs := agedConns(2, func(i int) int64 { return 10 * sec })
	cs[0].read.Store(4 << 10) // 4 KiB: not slow before 4 s at 1 KiB/s
	cs[1].read.Store(3 << 10) // 3 KiB: not before 3 s
	var a agedCache
	after := 2 * time.Second
	assert.Nil(t, a.next(conns, 11*sec, after, bodyAge))
	assert.Nil(t, a.next(conns, 11*sec+int64(agedLookFor)/2, after, bodyAge), "fast enough so far")
	assert.Nil(t, a.next(conns, 11*sec+int64(agedLookFor)-1, after, bodyAge))
	assert.Equal(t, 1, a.looks, "no look within agedLookFor of one that found none")
	assert.Nil(t, a.next(conns, 13*sec-sec/100, after, bodyAge))
	assert.Equal(t, 2, a.looks, "a look that found none is trusted for agedLookFor only")
	assert.Same(t, cs[1], a.next(conns, 13*sec+1, after, bodyAge), "slow once its rate falls under 1 KiB/s")
	// A body beginning after a look that found none is slow after its
	// own slowAfter.
	var b agedCache
	conns2, cs2 := agedConns(1, func(int) int64 { return 0 })
	assert.Nil(t, b.next(conns2, 20*sec, after, bodyAge))
	cs2[0].bodySince.Store(20*sec + 1)
	assert.Nil(t, b.next(conns2, 22*sec, after, bodyAge))
	assert.Same(t, cs2[0], b.next(conns2, 22*sec+2, after, bodyAge))
}

// TestAgedCacheAgainstLook drives the cache and a look through every
// connection at each call (the code before the cache) with random
// bodies, reads, endings, sheds and clocks: the cache answers none
// exactly when no body is slow, and what it answers is slow and open.
func TestAgedCacheAgainstLook(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 1 + rng.IntN(40)
		now := 5 * sec
		conns, cs := agedConns(n, func(int) int64 { return 0 })
		after := time.Duration(1+rng.IntN(3)) * time.Second
		var a agedCache
		for step := range 300 {
			now += rng.Int64N(int64(agedLookFor) * 3 / 2)
			for _, c := range cs {
				if c.gone {
					continue
				}
				switch rng.IntN(20) {
				case 0: // a body begins
					c.bodyBase.Store(c.read.Load())
					c.bodySince.Store(now)
				case 1: // it ends
					c.bodySince.Store(0)
				case 2, 3: // bytes arrive
					c.read.Add(rng.Int64N(2 << 10))
				}
			}
			var slow []*limitedConn
			for e := conns.Front(); e != nil; e = e.Next() {
				if _, due, _ := bodyAge(e.Value.(*limitedConn), now, after); due {
					slow = append(slow, e.Value.(*limitedConn))
				}
			}
			got := a.next(conns, now, after, bodyAge)
			if len(slow) == 0 {
				require.Nil(t, got, "seed %d step %d: none is slow", seed, step)
				continue
			}
			require.NotNil(t, got, "seed %d step %d: %d slow", seed, step, len(slow))
			require.Contains(t, slow, got, "seed %d step %d: what it answers is slow now", seed, step)
			if rng.IntN(2) == 0 {
				shed(conns, got)
			}
		}
	}
}

// TestAgedCacheStalledWriters: the same for writes blocked past
// stallAfter.
func TestAgedCacheStalledWriters(t *testing.T) {
	conns, cs := agedConns(3, func(int) int64 { return 0 })
	cs[0].writingSince.Store(2 * sec)
	cs[2].writingSince.Store(1 * sec)
	var a agedCache
	assert.Nil(t, a.next(conns, 3*sec, 3*time.Second, writeAge))
	assert.Nil(t, a.next(conns, 4*sec-1, 3*time.Second, writeAge), "none stalled before 1 s + 3 s")
	require.Same(t, cs[2], a.next(conns, 4*sec, 3*time.Second, writeAge), "stalled at 1 s + 3 s")
	shed(conns, cs[2])
	assert.Same(t, cs[0], a.next(conns, 5*sec, 3*time.Second, writeAge))
	assert.Equal(t, 4, a.looks, "a look 100 ms or more after the last, or when the candidates run out")
}

// TestAgedCacheHeapOrder: whatever the order of the connections, the
// slow bodies one look found come out oldest first.
func TestAgedCacheHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	starts := rng.Perm(DefaultMaxConns)
	conns, _ := agedConns(DefaultMaxConns, func(i int) int64 { return int64(starts[i]+1) * int64(time.Millisecond) })
	var a agedCache
	now := 10 * sec
	for want := range DefaultMaxConns {
		c := a.next(conns, now, 2*time.Second, bodyAge)
		require.NotNil(t, c)
		require.Equal(t, int64(want+1)*int64(time.Millisecond), c.bodySince.Load(), "shed %d", want)
		shed(conns, c)
	}
	assert.Equal(t, 1, a.looks)
}

// BenchmarkAgedLook: one look through the default cap's connections,
// when none is due and when every one is (in random order), then the
// first shed.
func BenchmarkAgedLook(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	starts := rng.Perm(DefaultMaxConns)
	for _, bc := range []struct {
		name string
		now  int64
	}{{"none-due", 2 * sec}, {"all-due", 10 * sec}} {
		b.Run(bc.name, func(b *testing.B) {
			conns, _ := agedConns(DefaultMaxConns, func(i int) int64 { return int64(starts[i]+1) * int64(time.Microsecond) })
			var a agedCache
			for b.Loop() {
				a.reset()
				a.next(conns, bc.now, 2*time.Second, bodyAge)
			}
		})
	}
}
