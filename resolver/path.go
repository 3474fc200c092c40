package resolver

import (
	"context"
	"sync"
	"time"
)

// Path measures the critical-path bound of one strand of a scan (one
// check): the longest chain of dependent DNS answers the strand waited on,
// as the sum of their wire times.
//
// The definition is causal and local to the strand. A question's virtual
// start is the strand's bound when the question was asked; its virtual end
// is the earlier of that and the virtual start of the strand that sent it
// (when another strand asked first), plus the question's wire time (from
// the moment the Scan sent it below to the moment the answer came back).
// Receiving the answer moves the strand's bound to the virtual end when
// that is later. A bound never exceeds the real time since the strand
// began. So a question asked after an answer came back is counted
// as depending on it, and questions asked together (before either answer
// came back) are counted once, as the longest of them. Work that is not a
// DNS question but must wait on one (the MTA-STS policy fetch) is added
// with [Path.Step]. The bound ignores CPU time, scheduling and everything
// the strand did not wait on: a scan's wall time divided by the largest
// bound of its strands shows how close the scan came to waiting only on
// the network.
//
// A Path is carried in the context (see [WithPath]); a [Scan] advances the
// Path of every caller it answers.
//
// Why it lives here, in the lowest layer: only the resolver knows what a
// strand really waited on. Which caller's question went to the wire,
// which was shared with another strand's flight (the Scan's dedupe, the
// Cache's singleflight), and when its answer came back, are facts of
// [Scan] and [Cache]; measured from above, a deduplicated question would
// look like a round trip of its own and the bound would be wrong. The
// measure costs one mutex and two clock reads per question, and nothing
// when no Path is in the context. It is safe for concurrent use; the
// zero value is a Path at 0.
//
// Alongside, a Path counts the same chains in round trips ([Path.Hops]):
// each question that went below the shared [Cache] (or below the Scan,
// without one) counts 1, an answer the Cache held counts 0. Hops × the
// network's round-trip time is the physical limit of a strand, whatever
// the CPU did meanwhile.
type Path struct {
	mu   sync.Mutex
	at   time.Duration
	hops int
	last time.Time // when the strand last received an answer
}

type pathKey struct{}

// WithPath returns ctx carrying p: the Scan's answers to lookups made with
// it advance p.
func WithPath(ctx context.Context, p *Path) context.Context {
	return context.WithValue(ctx, pathKey{}, p)
}

// PathFrom returns the Path ctx carries, or nil.
func PathFrom(ctx context.Context) *Path {
	p, _ := ctx.Value(pathKey{}).(*Path)
	return p
}

// Bound returns the strand's critical-path bound so far. A nil Path is at
// 0.
func (p *Path) Bound() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at
}

// Hops returns the length of the strand's longest chain of dependent
// questions that went to the wire, in round trips. A nil Path is at 0.
func (p *Path) Hops() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hops
}

func (p *Path) now() (time.Duration, int) {
	if p == nil {
		return 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at, p.hops
}

// reach moves p to at and hops when they are later, and records when
// (real time) the strand received the answer.
func (p *Path) reach(at time.Duration, hops int, now time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at = max(p.at, at)
	p.hops = max(p.hops, hops)
	if now.After(p.last) {
		p.last = now
	}
}

// Join makes p depend on everything other waited on: the strand of p has
// waited for the strand of other to finish.
func (p *Path) Join(other *Path) {
	if p == nil || other == nil || p == other {
		return
	}
	other.mu.Lock()
	at, hops, last := other.at, other.hops, other.last
	other.mu.Unlock()
	p.reach(at, hops, last)
}

// Step adds to p the time from the strand's latest answer to end: work
// that had to wait for that answer and is not a DNS question (a TCP
// connection, a TLS handshake, an HTTP exchange). It does nothing when the
// strand has received no answer yet.
func (p *Path) Step(end time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last.IsZero() || !end.After(p.last) {
		return
	}
	p.at += end.Sub(p.last)
	p.last = end
}

// cacheNote is how a Cache tells the Scan above it that it answered a
// question from memory, so that the question costs no round trip.
type cacheNote struct{ hit bool }

type noteKey struct{}

// noteCacheHit marks the question of ctx as answered from a cache.
func noteCacheHit(ctx context.Context) {
	if n, ok := ctx.Value(noteKey{}).(*cacheNote); ok {
		n.hit = true
	}
}
