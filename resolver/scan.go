package resolver

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultBudget is the number of distinct questions one scan may send
// (product choice, doc/design.md §2). It bounds a scan's DNS work whatever the
// zones say; a distinct question may still cost several wire queries
// (retries, CNAME hops, a TCP retry), which the scan deadline bounds. The
// scanner divides it among the checks so that none can starve another:
// the fixed worst cases of MX (with the TLSA sets of its exchanges),
// DMARC, DKIM, MTA-STS, TLS-RPT, PTR and CAA take 78, and SPF gets the
// rest.
const DefaultBudget = 130

// MaxScanBytes bounds the answer data one Scan keeps (names, TXT strings,
// CAA values, each counted with a fixed per-record overhead; see
// answerBytes). A hostile zone can answer each of the budget's questions
// with a 64 KiB message, so without this bound one scan could hold about
// 7.5 MiB of answers, and the service's 512 scans at once about 3.75 GiB
// (RELIABILITY.md).
// Real domains need a few KiB: the largest SPF trees, with 50 includes of
// 1 KiB each, need about 60 KiB. An answer that would take a scan past the
// bound is not kept: the question is answered Inconclusive with
// ReasonBudgetExhausted, as a question past the query budget is.
const MaxScanBytes = 512 << 10

// What answerBytes charges on top of an answer's texts.
const (
	// answerOverhead is the Answer struct and its slice headers.
	answerOverhead = 128
	// recordOverhead is one Record struct with its string and slice
	// headers: 160 bytes on amd64 and arm64 (TestCacheBoundIsHonest).
	recordOverhead = 160
	// stringOverhead is one string header in a slice (a CNAME, a TXT string).
	stringOverhead = 16
)

// Scan wraps a Resolver for the life of one scan. Identical questions
// (same name, any case, and type) asked concurrently go to the wire once
// and share the answer; later identical questions are answered from the
// scan's cache, whatever their outcome (an inconclusive answer is not
// asked again within the scan, except a canceled one). Every distinct
// question counts against the budget; past it, lookups of new questions
// return Inconclusive with ReasonBudgetExhausted at once, while questions
// already asked are still answered from the cache.
//
// A Scan is safe for concurrent use. Its zero value is not usable; call
// [NewScan].
type Scan struct {
	next   Resolver
	budget int
	now    func() time.Time

	mu      sync.Mutex
	calls   map[question]*call
	dropped int     // canceled questions, removed from calls but spent
	bytes   int     // answer data kept, see MaxScanBytes
	log     []*call // the questions sent, in the order they completed (see query)
}

// Query records one distinct question a Scan sent to the resolver below
// it, for tests, benchmarks and the redaction guard.
type Query struct {
	Name    string
	Type    Type
	Start   time.Time
	End     time.Time
	Outcome Outcome
	Reason  Reason
}

type question struct {
	name  string
	qtype Type
}

type call struct {
	q question
	// landed: the answer is in (set under the Scan's mu, see land);
	// waiters: the callers that found the question in flight, resumed
	// then.
	landed  bool
	waiters []callWaiter
	answer  Answer
	// While the question is asked (see run): when, what the Cache below
	// said of it, and whether the resolver below returned.
	start    time.Time
	end      time.Time // when the answer was published, set under the Scan's mu
	note     cacheNote
	answered atomic.Bool   // the resolver below answered (or panicked: see run)
	asked    time.Duration // the sender's Path bound when it asked
	hops     int           // the sender's Path hops when it asked
	wire     time.Duration // how long the question took below the Scan
	trip     int           // 1 when the question went to the wire, 0 for a cache hit
}

// typicalQuestions is the room a Scan makes at the start for the
// questions it sends: a whole scan of a fully configured domain asks
// about 15 (each a map entry and a log entry), and the room grows past it
// as any map and slice does.
const typicalQuestions = 16

// NewScan returns a per-scan resolver over next with the given query
// budget; budget <= 0 means DefaultBudget.
func NewScan(next Resolver, budget int) *Scan {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Scan{next: next, budget: budget, now: time.Now, calls: make(map[question]*call, typicalQuestions),
		log: make([]*call, 0, typicalQuestions)}
}

// Lookup implements Resolver. A caller whose ctx has ended gets the
// answer the scan has to its question, or else ReasonCanceled at once,
// without spending budget. When the caller that
// sent a shared question gives up (its ctx ended), the callers waiting on
// it with live contexts ask again rather than inherit its cancellation.
// Every caller gets its own copy of the answer's slices. An answer moves
// the caller's [Path] (if ctx carries one) by the question's wire time.
func (s *Scan) Lookup(ctx context.Context, name string, qtype Type) Answer {
	return lookupVia(ctx, s.Start, name, qtype)
}

// Start implements [Starter], with Lookup's rules. A caller that finds
// its question in flight waits in the question's list, not in a
// goroutine of its own.
func (s *Scan) Start(ctx context.Context, name string, qtype Type, done func(Answer)) {
	if k := s.ask(ctx, name, qtype, done); k != nil {
		k.try()
	}
}

// ask answers a question asked before in this scan and answered, the
// common case of a question asked again, and returns nil (also when ctx
// has ended: the answer is in, and says more than ReasonCanceled); else it
// returns the caller's state, to send the question or wait for it. It
// is not inlined: what it holds is not in the frames under which a
// question is sent.
//
//go:noinline
func (s *Scan) ask(ctx context.Context, name string, qtype Type, done func(Answer)) *scanAsk {
	q, path := question{CanonicalName(name), qtype}, PathFrom(ctx)
	asked, hops := path.now()
	if c := s.landed(q); c != nil && c.answer.Reason != ReasonCanceled {
		handOn(done, s.served(path, asked, hops, c))
		return nil
	}
	return &scanAsk{s: s, ctx: ctx, q: q, path: path, asked: asked, hops: hops, done: done}
}

// landed returns the call of q when its answer is in; nil otherwise.
func (s *Scan) landed(q question) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[q]; c != nil && c.landed {
		return c
	}
	return nil
}

// served is c's answer as a caller whose path was at asked and hops
// gets it: its own copy, with the path moved by the question's wire
// time. In a schedule that waited on nothing else, the question would
// have been sent by the earlier of the two strands.
func (s *Scan) served(path *Path, asked time.Duration, hops int, c *call) Answer {
	path.reach(min(asked, c.asked)+c.wire, min(hops, c.hops)+c.trip, s.now())
	return cloneAnswer(&c.answer)
}

// scanAsk is one caller's question to a Scan (Start).
type scanAsk struct {
	s     *Scan
	ctx   context.Context
	q     question
	path  *Path
	asked time.Duration // the caller's Path when it asked
	hops  int
	done  func(Answer) // nil once answered (see answer)

	turnWait // while it waits on the question sent by another caller

	handed atomic.Bool // answered (see answer)
}

// answer hands a to the caller, once: later calls do nothing. It lets
// go of what the caller's done holds (see cacheAsk.answer). A panic in
// done is the caller's and is not raised here (see handOn).
func (k *scanAsk) answer(a Answer) {
	if !k.handed.CompareAndSwap(false, true) {
		return
	}
	done := k.done
	k.done = nil
	handOn(done, a)
}

// contain is deferred where k's work runs on a goroutine the Scan does
// not own (see cacheAsk.contain).
func (k *scanAsk) contain() {
	if recover() != nil {
		k.answer(Fail(ReasonMalformed))
	}
}

// try claims the question: it sends it, waits for the caller that
// sends it, or takes its answer.
func (k *scanAsk) try() {
	for {
		if ended(k.ctx) {
			// Also when the deadline passed by the clock and the context
			// has not said so yet: a question asked again then would be
			// answered canceled at once, and asked again, until the
			// budget is spent.
			k.answer(Fail(ReasonCanceled))
			return
		}
		c, owner, ok := k.s.claim(k.q)
		if !ok {
			k.answer(Fail(ReasonBudgetExhausted))
			return
		}
		if owner {
			c.asked, c.hops = k.asked, k.hops
			k.s.run(k.ctx, k.q, c, k)
			return
		}
		if k.wait(c) {
			return // the answer's landing or the context's end goes on
		}
		if k.take(c) {
			return
		}
		// The sender gave up; the loop returns at once if ctx did too,
		// and otherwise asks again (bounded by the budget).
	}
}

// take hands c's answer on, and reports whether it did: false when the
// sender gave up (ReasonCanceled) and k asks again.
func (k *scanAsk) take(c *call) bool {
	if c.answer.Reason == ReasonCanceled {
		return false
	}
	k.answer(k.s.served(k.path, k.asked, k.hops, c))
	return true
}

// wait puts k in c's list of waiters, and reports whether it did: false
// when c's answer landed meanwhile (the caller takes it at once).
// Whichever of the landing and the end of k's context comes first takes
// the wait (an answer already in is taken even when ctx has ended
// meanwhile: a lookup that the deadline ended, ReasonSlow or
// ReasonTimeout, says more than ReasonCanceled).
func (k *scanAsk) wait(c *call) bool {
	s := k.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.landed {
		return false
	}
	// Armed under the lock, before the wait is listed: the context's
	// func runs on a goroutine of its own, and whichever takes the wait
	// first answers.
	turn := k.arm(k.ctx, func() { k.answer(Fail(ReasonCanceled)) })
	c.waiters = append(c.waiters, callWaiter{k: k, turn: turn})
	return true
}

// callWaiter is a caller waiting on a call, for its wait number turn.
type callWaiter struct {
	k    *scanAsk
	turn uint32
}

// resume goes on with w's question once c's answer landed, unless w's
// context ended first. It runs on the goroutine that landed c.
func (w callWaiter) resume(c *call) {
	k := w.k
	if !k.turnWait.take(w.turn) {
		return
	}
	defer k.contain()
	if !k.take(c) {
		k.try()
	}
}

// claim returns the call for q, and whether the caller owns it and must
// send it. ok is false when q is new and the budget is spent.
func (s *Scan) claim(q question) (c *call, owner, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, found := s.calls[q]; found {
		return c, false, true
	}
	if len(s.calls)+s.dropped >= s.budget {
		return nil, false, false
	}
	c = &call{q: q}
	s.calls[q] = c
	return c, true, true
}

// run sends q to the wrapped resolver for k, the caller that owns c, and
// publishes the answer to every waiter. A canceled lookup is not cached:
// a later caller with a live context asks again (the canceled attempt
// still counts against the budget). A panic in the wrapped resolver
// becomes an Inconclusive answer with ReasonMalformed, published and
// cached like any other, and the call lands either way (land), so that
// no waiter hangs.
func (s *Scan) run(ctx context.Context, q question, c *call, k *scanAsk) {
	c.start = s.now()
	answered := func(a Answer) {
		if !c.answered.CompareAndSwap(false, true) {
			return
		}
		c.answer = a
		if !s.publishSafely(q, c) {
			c.answer = Fail(ReasonMalformed)
		}
		s.land(c)
		defer k.contain()
		if !k.take(c) {
			k.try()
		}
	}
	defer func() {
		if p := recover(); p != nil {
			if c.answered.Load() {
				panic(p) // not below: in the work on the answer, above
			}
			answered(Fail(ReasonMalformed))
		}
	}()
	Start(context.WithValue(ctx, noteKey{}, &c.note), s.next, q.name, q.qtype, answered)
}

// land marks c's answer in and resumes its waiters, if any.
func (s *Scan) land(c *call) {
	s.mu.Lock()
	c.landed = true
	waiters := c.waiters
	c.waiters = nil
	s.mu.Unlock()
	resumeAll(waiters, c)
}

// publishSafely is publish, and reports whether it returned: it runs
// on the goroutine that received the reply, where a panic would end the
// process; the call then lands ReasonMalformed.
func (s *Scan) publishSafely(q question, c *call) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	s.publish(q, c)
	return true
}

// publish keeps c.answer, the answer to q that c waited for, and notes
// it in the Scan's log.
func (s *Scan) publish(q question, c *call) {
	if !c.note.hit {
		c.trip = 1
	}
	end := s.now()
	s.mu.Lock()
	if n := answerBytes(c.answer); s.bytes+n > MaxScanBytes {
		c.answer = Fail(ReasonBudgetExhausted)
	} else {
		s.bytes += n
	}
	c.end = end
	s.log = append(s.log, c)
	if c.answer.Reason == ReasonCanceled {
		delete(s.calls, q)
		s.dropped++
	}
	s.mu.Unlock()
	c.wire = end.Sub(c.start)
}

// answerBytes estimates the memory an answer keeps: its texts plus the
// fixed overheads above. A Scan charges it against MaxScanBytes; a Cache
// adds its entry's own cost (answerSize).
func answerBytes(a Answer) int {
	n := answerOverhead
	for _, c := range a.CNAMEs {
		n += stringOverhead + len(c)
	}
	for _, r := range a.Records {
		n += recordOverhead + len(r.Name) + len(r.Target) + len(r.CAATag) + len(r.CAAValue) + len(r.RData)
		for _, t := range r.TXT {
			n += stringOverhead + len(t)
		}
	}
	return n
}

// Bytes returns the answer data this Scan keeps (at most MaxScanBytes).
func (s *Scan) Bytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// cloneAnswer copies the slices of a shared answer, so that a caller that
// sorts or trims its records cannot disturb another. It is not inlined:
// inlined, its locals would sit in the frame of every resolver layer
// that calls it, under which lookups wait.
//
//go:noinline
func cloneAnswer(src *Answer) Answer {
	a := *src
	a.CNAMEs = slices.Clone(a.CNAMEs)
	if a.Records != nil {
		recs := make([]Record, len(a.Records))
		for i, r := range a.Records {
			r.TXT = cloneTXT(r.TXT)
			recs[i] = r
		}
		a.Records = recs
	}
	return a
}

// Queries returns the number of questions sent below this Scan.
func (s *Scan) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// All reports whether every question sent below this Scan, in the order
// they completed, satisfies f (true when none was sent), reading them in
// place rather than copying them as Log does. f must not call s.
func (s *Scan) All(f func(Query) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.log {
		if !f(c.query()) {
			return false
		}
	}
	return true
}

// Log returns a copy of the questions sent below this Scan, in the order
// they completed.
func (s *Scan) Log() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log) == 0 {
		return nil
	}
	out := make([]Query, len(s.log))
	for i, c := range s.log {
		out[i] = c.query()
	}
	return out
}

// query returns the log entry of c, a published call: its question, when
// it was sent and answered, and the answer's outcome. A call's fields are
// no longer written once it is published (the Scan's log holds the call
// rather than a copy of them: a pointer per question, not a Query).
// Called with the Scan's mu held.
func (c *call) query() Query {
	return Query{Name: c.q.name, Type: c.q.qtype, Start: c.start, End: c.end, Outcome: c.answer.Outcome, Reason: c.answer.Reason}
}

// Func adapts a function to the Resolver interface.
type Func func(ctx context.Context, name string, qtype Type) Answer

// Lookup implements Resolver.
func (f Func) Lookup(ctx context.Context, name string, qtype Type) Answer {
	return f(ctx, name, qtype)
}
