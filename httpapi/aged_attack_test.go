package httpapi

import (
	"container/list"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldestDue is the look the cache replaces: the connection of conns
// whose state (age) is due at now and began first, or nil.
func oldestDue(conns *list.List, now int64, after time.Duration, age ageFunc) *limitedConn {
	var oldest *limitedConn
	var first int64
	for e := conns.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		if since, due, _ := age(c, now, after); due && (oldest == nil || since < first) {
			oldest, first = c, since
		}
	}
	return oldest
}

// TestAgedAttackChangedStateNotTaken: a candidate whose body gave way,
// after the look, to another body that is slow too (slowAfter shorter
// than agedLookFor, as tests set it) is not taken for the old one: the
// oldest slow body comes first, as a look at each call would have it.
func TestAgedAttackChangedStateNotTaken(t *testing.T) {
	after := 20 * time.Millisecond
	conns, cs := agedConns(3, func(i int) int64 { return int64(i+1) * sec })
	var a agedCache
	now := 10 * sec
	require.Same(t, cs[0], a.next(conns, now, after, bodyAge), "the body read longest")
	shed(conns, cs[0])
	cs[1].bodyBase.Store(cs[1].read.Load())
	cs[1].bodySince.Store(now + 10*int64(time.Millisecond)) // a new body, slow 20 ms later
	now += 50 * int64(time.Millisecond)
	require.Same(t, cs[2], oldestDue(conns, now, after, bodyAge))
	assert.Same(t, cs[2], a.next(conns, now, after, bodyAge), "the oldest slow body, not the new one in the old one's place")
	assert.Equal(t, 1, a.looks)
}

// TestAgedAttackStartReadBeforeLook: a body whose start time was read
// just before a look that found none (startBody reads the clock, then
// publishes it) is found as soon as it is slow.
func TestAgedAttackStartReadBeforeLook(t *testing.T) {
	after := 2 * time.Second
	conns, cs := agedConns(1, func(int) int64 { return 0 })
	var a agedCache
	look := 20 * sec
	require.Nil(t, a.next(conns, look, after, bodyAge), "no body yet")
	cs[0].bodySince.Store(look - int64(500*time.Microsecond)) // clock read 0.5 ms before the look
	due := look - int64(500*time.Microsecond) + int64(after)
	assert.Same(t, cs[0], a.next(conns, due, after, bodyAge), "slow at its own start + slowAfter")
}

// TestAgedAttackStartReadLongBeforeLook: the same when the goroutine
// that read the clock was held up for 5 ms before publishing it (a
// preempted thread, a stop of the world): a newcomer at the cap must not
// be refused for long while that body is slow.
func TestAgedAttackStartReadLongBeforeLook(t *testing.T) {
	after := 2 * time.Second
	conns, cs := agedConns(1, func(int) int64 { return 0 })
	var a agedCache
	look := 20 * sec
	require.Nil(t, a.next(conns, look, after, bodyAge), "no body yet")
	start := look - 5*int64(time.Millisecond)
	cs[0].bodySince.Store(start)
	// Newcomers keep arriving: one a millisecond from the look on.
	var found int64
	for now := look + int64(time.Millisecond); now < start+int64(after)+int64(agedLookFor)+int64(time.Millisecond); now += int64(time.Millisecond) {
		if c := a.next(conns, now, after, bodyAge); c != nil {
			found = now
			break
		}
	}
	require.NotZero(t, found, "the slow body is found at all")
	assert.LessOrEqual(t, found, start+int64(after)+int64(time.Millisecond), "found within a millisecond of becoming slow")
}

// TestAgedAttackWritersAgainstLook drives the stalled-writer cache
// against a look through every connection at each call with random
// writes beginning (some with a clock read up to 0.5 ms before the
// previous call, as a Write racing the look does), ending and
// connections shed: the cache answers none exactly when no write is
// stalled, and what it answers is stalled.
func TestAgedAttackWritersAgainstLook(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 2))
		n := 1 + rng.IntN(40)
		now := 5 * sec
		conns, cs := agedConns(n, func(int) int64 { return 0 })
		after := time.Duration(1+rng.IntN(3)) * time.Second
		var a agedCache
		for step := range 300 {
			prev := now
			now += rng.Int64N(int64(agedLookFor) * 3 / 2)
			for _, c := range cs {
				if c.gone {
					continue
				}
				switch rng.IntN(20) {
				case 0: // a write begins (its clock read at most 0.5 ms before the last call)
					c.writingSince.Store(max(1, prev-rng.Int64N(int64(500*time.Microsecond))+rng.Int64N(now-prev+1)))
				case 1: // it ends
					c.writingSince.Store(0)
				}
			}
			want := oldestDue(conns, now, after, writeAge)
			got := a.next(conns, now, after, writeAge)
			if want == nil {
				require.Nil(t, got, "seed %d step %d: none is stalled", seed, step)
				continue
			}
			require.NotNil(t, got, "seed %d step %d: one is stalled", seed, step)
			_, due, _ := writeAge(got, now, after)
			require.True(t, due, "seed %d step %d: what it answers is stalled now", seed, step)
			if rng.IntN(2) == 0 {
				shed(conns, got)
			}
		}
	}
}

// TestAgedAttackEarliestNotLate: for every body size up to well past
// what a body may hold, a body is not slow before the earliest time
// bodyAge gives for it (the float arithmetic of the rate does not make
// it slow a nanosecond sooner).
func TestAgedAttackEarliestNotLate(t *testing.T) {
	after := 2 * time.Second
	const since = 7 * sec
	for read := range int64(64 << 10) {
		c := &limitedConn{}
		c.bodySince.Store(since)
		c.read.Store(read)
		_, _, earliest := bodyAge(c, since, after)
		for _, d := range []int64{1, 2, 3} {
			_, due, _ := bodyAge(c, earliest-d, after)
			require.False(t, due, "%d bytes: slow %d ns before its earliest", read, d)
		}
		_, due, _ := bodyAge(c, earliest, after)
		require.True(t, due, "%d bytes: slow at its earliest", read)
	}
}

// TestAgedAttackSiege plays the slow-body siege on a clock of its own:
// every place a slow body, a newcomer every 1/6,000 s, each shed
// connection's place taken by a newcomer whose body begins at once. The
// cache sheds only slow bodies, refuses a newcomer only when none is
// slow, and never looks through the connections more than once per
// newcomer; the figures it logs are its looks per shed.
func TestAgedAttackSiege(t *testing.T) {
	const n = DefaultMaxConns
	after := 2 * time.Second
	start := 10 * sec
	// Bodies began over the last 2 s, one every ~1 ms.
	conns, _ := agedConns(n, func(i int) int64 { return start - int64(after) + int64(i)*int64(after)/n })
	var a agedCache
	calls, sheds := 0, 0
	step := sec / 6000
	for now := start; now < start+2*sec; now += step {
		calls++
		want := oldestDue(conns, now, after, bodyAge)
		got := a.next(conns, now, after, bodyAge)
		if want == nil {
			require.Nil(t, got, "at %d: none is slow", now)
			continue
		}
		require.NotNil(t, got, "at %d: one is slow", now)
		_, due, _ := bodyAge(got, now, after)
		require.True(t, due)
		shed(conns, got)
		sheds++
		c := &limitedConn{}
		c.bodySince.Store(now)
		c.all = conns.PushBack(c)
	}
	t.Logf("%d newcomers, %d sheds, %d looks (%.2f a shed)", calls, sheds, a.looks, float64(a.looks)/float64(sheds))
	assert.LessOrEqual(t, a.looks, calls)
}

// TestAgedAttackLookForBounds: a body that becomes slow after a look and
// began before that look's candidates waits for a new look at most
// agedLookFor, then comes first, as a look at each call would have it.
func TestAgedAttackLookForBounds(t *testing.T) {
	after := 2 * time.Second
	conns, cs := agedConns(3, func(i int) int64 { return int64(5+i) * sec })
	cs[0].read.Store(10 << 10) // 10 KiB: not slow before 15 s
	var a agedCache
	now := 15*sec - int64(agedLookFor)/2
	require.Same(t, cs[1], a.next(conns, now, after, bodyAge), "the oldest slow body at the look")
	now = 15*sec + int64(agedLookFor)
	require.Same(t, cs[0], oldestDue(conns, now, after, bodyAge))
	assert.Same(t, cs[0], a.next(conns, now, after, bodyAge), "a look agedLookFor after the last finds the older body")
}
