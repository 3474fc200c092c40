package httpapi

import (
	"container/heap"
	"container/list"
	"time"
)

// agedLookFor is how long the connections one look through every
// connection found stay the candidates (agedCache), and how long a look
// that found none is trusted at most. A flood of newcomers at the cap
// (thousands a second in the slow-body siege, RELIABILITY.md
// "Connections") then costs a look when the candidates run out or grow
// old, and one check per newcomer, not a look through every connection
// per newcomer. When connections become due one at a time, a look finds
// one, and the next newcomer's look finds none: about two looks a shed
// (TestAgedAttackSiege logs the figure).
const agedLookFor = 100 * time.Millisecond

// ageFunc reports when c's state in question (a body being read, a write
// in progress) began (0: not in it), whether it is due to be shed at now
// (read too slowly, blocked too long: after at least after), and if not,
// the earliest time it could be.
type ageFunc func(c *limitedConn, now int64, after time.Duration) (since int64, due bool, earliest int64)

// agedCand is a connection found due, with the start of the state it was
// found in: taken only while that state has not changed.
type agedCand struct {
	c     *limitedConn
	since int64
}

// agedCache finds the connection due longest (slowBody, stalledWriter)
// without looking through every connection for each newcomer at the cap.
// A look through every connection keeps every connection due, in a heap
// by the start of its state (a heap, not a sort: building it costs about
// what the look does, so a look that yields one shed costs no more than
// before); for agedLookFor the oldest one still due is taken from them
// (checked again, and skipped if it is gone or its state has changed).
// A look that finds none keeps the earliest time any connection could
// become due (at most agedLookFor ahead), and before then the answer is
// none without a look. A connection that becomes due after a look waits
// for the next one (at most agedLookFor, or at once when the candidates
// run out), so the connection shed is always due and the oldest of the
// last look's. The candidates not taken stay referenced until the next
// look or reset (the Listener resets when a flood has drained).
// Guarded by the Listener's mu.
type agedCache struct {
	cands    agedHeap
	lookedAt int64 // monoNow of the last look (0: none)
	noneTill int64 // none is due before this (0: unknown)
	looks    int   // looks through every connection so far (tests read it)
}

// reset forgets the last look (no connection is in the state now).
func (a *agedCache) reset() {
	clear(a.cands)
	a.cands, a.lookedAt, a.noneTill = a.cands[:0], 0, 0
}

// next returns the connection of conns due longest, or nil.
func (a *agedCache) next(conns *list.List, now int64, after time.Duration, age ageFunc) *limitedConn {
	if now < a.noneTill {
		return nil
	}
	if a.lookedAt != 0 && now-a.lookedAt < int64(agedLookFor) {
		if c := a.take(now, after, age); c != nil {
			return c
		}
	}
	a.look(conns, now, after, age)
	return a.take(now, after, age)
}

// take returns the oldest candidate still due, or nil.
func (a *agedCache) take(now int64, after time.Duration, age ageFunc) *limitedConn {
	for len(a.cands) > 0 {
		cand := heap.Pop(&a.cands).(agedCand)
		if cand.c.gone {
			continue
		}
		if since, due, _ := age(cand.c, now, after); due && since == cand.since {
			return cand.c
		}
	}
	return nil
}

// agedHeap is a min-heap of candidates by the start of their state
// (container/heap).
type agedHeap []agedCand

func (h agedHeap) Len() int           { return len(h) }
func (h agedHeap) Less(i, j int) bool { return h[i].since < h[j].since }
func (h agedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *agedHeap) Push(x any)        { *h = append(*h, x.(agedCand)) }
func (h *agedHeap) Pop() any {
	old := *h
	last := len(old) - 1
	c := old[last]
	old[last] = agedCand{} // let go of the connection
	*h = old[:last]
	return c
}

// look goes through every connection, keeping those due, oldest first,
// or, when none is, the earliest time one could be.
func (a *agedCache) look(conns *list.List, now int64, after time.Duration, age ageFunc) {
	clear(a.cands)
	a.cands, a.lookedAt, a.noneTill = a.cands[:0], now, 0
	a.looks++
	// A state that begins after this look is not due before now + after;
	// one that began while the look read its connection may carry a
	// start a little before now (its clock was read first).
	// A look that finds none is trusted for agedLookFor at most, as one
	// that finds some is: a state whose start was published later still
	// (its goroutine held up between reading the clock and storing it)
	// is then found at most that late.
	earliest := min(now+int64(after)-int64(time.Millisecond), now+int64(agedLookFor))
	for e := conns.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		since, due, at := age(c, now, after)
		switch {
		case since == 0:
		case due:
			a.cands = append(a.cands, agedCand{c, since})
		default:
			earliest = min(earliest, at)
		}
	}
	if len(a.cands) == 0 {
		a.noneTill = earliest
		return
	}
	heap.Init(&a.cands)
}
