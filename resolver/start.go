package resolver

import (
	"context"
	"sync"
	"sync/atomic"
)

// Starter is a Resolver that can start a lookup and return before it
// ends: the answer is handed to a function instead of returned, so that
// no goroutine has to wait under the lookup. A caller that asks several
// questions at once (an exchange's A and AAAA, a CAA climb beside its
// first question) starts them all and waits once (see [Begin]), on its
// own goroutine.
type Starter interface {
	Resolver
	// Start asks for the records of type qtype at name, as Lookup does,
	// and calls done with the answer exactly once: perhaps before Start
	// returns, perhaps later on another goroutine (the one that received
	// the reply, or a timer's). done must return promptly and must not
	// ask the same Starter a question and wait for it. Every Starter of
	// this package ends its lookups when ctx ends, as Lookup does, so
	// done is called by then.
	Start(ctx context.Context, name string, qtype Type, done func(Answer))
}

// Start asks r the question as [Starter.Start] does: through r's own
// Start when r is a Starter, else in a goroutine that waits on r.Lookup
// (the cost Start saves a Starter's callers), where a panic below
// becomes ReasonMalformed.
func Start(ctx context.Context, r Resolver, name string, qtype Type, done func(Answer)) {
	if s, ok := r.(Starter); ok {
		s.Start(ctx, name, qtype, done)
		return
	}
	go func() {
		a, ok := lookupSafely(ctx, r, name, qtype)
		if !ok {
			a = Fail(ReasonMalformed) // a panic below: it would end the process here
		}
		handOn(done, a)
	}()
}

// MemoStarter is a [Memoizer] that can start its lookups ([Cache]).
type MemoStarter interface {
	Memoizer
	// StartMemo is LookupMemo's [Starter.Start]: done gets the answer
	// and its memo once, with Starter.Start's rules.
	StartMemo(ctx context.Context, name string, qtype Type, key any, compute func(Answer) (memo any, size int), done func(Answer, any))
}

// Pending is a lookup started by [Begin], whose answer [Pending.Wait]
// returns.
type Pending struct {
	once sync.Once
	// in is done when the answer (or the panic) is in; a WaitGroup
	// rather than a channel: no allocation of its own.
	in sync.WaitGroup
	a  Answer
	// panicked is what the lookup panicked with in the goroutine Begin
	// started for it (over a Resolver that is not a Starter); nil if it
	// did not. Wait raises it again.
	panicked any
}

// Begin starts the lookup of name and qtype through r (see [Start]) and
// returns at once; Wait returns its answer. Over a [Starter] the lookup
// has no goroutine of its own: a check that asks several questions at
// once begins them all and waits on one stack. Over any other Resolver
// the lookup runs in a goroutine, as Start's does, except that a panic
// there is recovered and raised again by Wait, in the goroutine that
// waits, where the check's own recover can take it (as it took the panic
// of a lookup the check made itself). A Starter's Start that panics
// panics in Begin.
func Begin(ctx context.Context, r Resolver, name string, qtype Type) *Pending {
	p := newPending()
	if s, ok := r.(Starter); ok {
		s.Start(ctx, name, qtype, p.land)
		return p
	}
	go p.lookup(ctx, r, name, qtype)
	return p
}

// lookup is the goroutine Begin starts over a Resolver that is not a
// Starter: it looks the question up and lands the answer, or the panic.
func (p *Pending) lookup(ctx context.Context, r Resolver, name string, qtype Type) {
	defer func() {
		if v := recover(); v != nil {
			p.once.Do(func() {
				p.panicked = v
				p.in.Done()
			})
		}
	}()
	p.land(r.Lookup(ctx, name, qtype))
}

// newPending returns a Pending whose answer is not in yet.
func newPending() *Pending {
	p := &Pending{}
	p.in.Add(1)
	return p
}

// land takes the answer, once: a second call, which no Starter of this
// package makes, is ignored rather than allowed to panic or block the
// goroutine that makes it.
func (p *Pending) land(a Answer) {
	p.once.Do(func() {
		p.a = a
		p.in.Done()
	})
}

// Wait returns the lookup's answer once it is in. It returns by the
// time the context given to Begin ends (the Starter ends the lookup
// then). When the lookup panicked (see [Begin]), Wait panics with the
// same value, every time it is called.
func (p *Pending) Wait() Answer {
	p.in.Wait()
	if p.panicked != nil {
		panic(p.panicked)
	}
	return p.a
}

// lookupVia is Lookup over a Start function: it starts the question
// and waits for its answer, in a frame that holds no more than the
// Pending it waits on. Every Starter of this package implements Lookup
// with it, so that a goroutine that waits on the DNS waits here, above
// the layers that do the work, which run when the reply comes.
func lookupVia(ctx context.Context, start func(context.Context, string, Type, func(Answer)), name string, qtype Type) Answer {
	p := newPending()
	start(ctx, name, qtype, p.land)
	return p.Wait()
}

// handOn calls done with a, and drops a panic in it. done is the
// caller's, above the layer that hands the answer on; every layer of
// this package contains the panics of its own work before it calls the
// done above it (so a check's lookup ends ReasonMalformed, as a panic
// below a Scan always has), and Pending's never panics. A panic that
// still reaches here, from a done outside this package, would otherwise
// end the process from a goroutine that is not the caller's (a socket's
// reader, a timer's, a context's) or cut short the landing of other
// callers' answers.
func handOn(done func(Answer), a Answer) {
	defer func() { _ = recover() }()
	done(a)
}

// handOnMemo is handOn for a done that takes a memo (Cache.StartMemo).
func handOnMemo(done func(Answer, any), a Answer, memo any) {
	defer func() { _ = recover() }()
	done(a, memo)
}

// maxInlineResumes is how many callers waiting on one answer the
// goroutine that landed it resumes itself. Past it (a question many
// scans asked at once) it resumes them in a goroutine of its own: the
// goroutine that landed the answer is often a socket's reader, with
// other replies to hand on.
const maxInlineResumes = 8

// resumer is a caller waiting on an answer of type T (flightWaiter,
// callWaiter).
type resumer[T any] interface{ resume(T) }

// resumeAll resumes waiters with x (see maxInlineResumes).
func resumeAll[W resumer[T], T any](waiters []W, x T) {
	if len(waiters) <= maxInlineResumes {
		for _, w := range waiters {
			w.resume(x)
		}
		return
	}
	go func() {
		for _, w := range waiters {
			w.resume(x)
		}
	}()
}

// lookupSafely is r.Lookup, and reports whether it returned.
func lookupSafely(ctx context.Context, r Resolver, name string, qtype Type) (a Answer, ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	return r.Lookup(ctx, name, qtype), true
}

// landing is where a sync lookup's answer lands, with what else its
// Start hands on (a TTL, a memo).
type landing[E any] struct {
	in    sync.WaitGroup
	a     Answer
	extra E
}

func newLanding[E any]() *landing[E] {
	l := &landing[E]{}
	l.in.Add(1)
	return l
}

func (l *landing[E]) land(a Answer, extra E) {
	l.a, l.extra = a, extra
	l.in.Done()
}

func (l *landing[E]) wait() (Answer, E) {
	l.in.Wait()
	return l.a, l.extra
}

// turnWait is how a caller waits on an answer another caller sends (a
// Cache's flight, a Scan's shared question): whichever of the answer's
// landing and the end of the caller's context comes first takes the
// wait, by its number; the other does nothing.
type turnWait struct {
	stop  func() bool // stops the context's func
	turns atomic.Uint32
}

// arm begins a wait and returns its number: canceled runs if ctx ends
// before the answer's landing takes the wait.
func (w *turnWait) arm(ctx context.Context, canceled func()) uint32 {
	turn := w.turns.Load()
	w.stop = context.AfterFunc(ctx, func() {
		if w.turns.CompareAndSwap(turn, turn+1) {
			canceled()
		}
	})
	return turn
}

// take takes wait turn for the answer's landing, and reports whether it
// did (false: the context's end took it).
func (w *turnWait) take(turn uint32) bool {
	if !w.turns.CompareAndSwap(turn, turn+1) {
		return false
	}
	w.stop()
	return true
}
