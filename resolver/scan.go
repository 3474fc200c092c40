package resolver

import (
	"context"
	"slices"
	"sync"
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
	// recordOverhead is one Record struct with its string and slice headers.
	recordOverhead = 128
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
	// done is closed when the answer is in; it is made (under the Scan's
	// mu) only for a caller that finds the question still in flight, so
	// that a question asked once, as most are, costs no channel.
	done chan struct{}
	// landed: the answer is in (set under the Scan's mu, see land).
	landed bool
	answer Answer
	// While the question is asked (see run): when, what the Cache below
	// said of it, and whether the resolver below returned.
	start    time.Time
	end      time.Time // when the answer was published, set under the Scan's mu
	note     cacheNote
	answered bool
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

// Lookup implements Resolver. A caller whose ctx has ended gets
// ReasonCanceled at once, without spending budget. When the caller that
// sent a shared question gives up (its ctx ended), the callers waiting on
// it with live contexts ask again rather than inherit its cancellation.
// Every caller gets its own copy of the answer's slices. An answer moves
// the caller's [Path] (if ctx carries one) by the question's wire time.
func (s *Scan) Lookup(ctx context.Context, name string, qtype Type) Answer {
	q := question{CanonicalName(name), qtype}
	path := PathFrom(ctx)
	asked, hops := path.now()
	for {
		if ctx.Err() != nil {
			return Fail(ReasonCanceled)
		}
		c, done, owner, ok := s.claim(q)
		if !ok {
			return Fail(ReasonBudgetExhausted)
		}
		if owner {
			c.asked, c.hops = asked, hops
			s.run(ctx, q, c) // the answer is in when it returns
		} else if !wait(ctx, done) {
			return Fail(ReasonCanceled)
		}
		if c.answer.Reason != ReasonCanceled {
			// In a schedule that waited on nothing else, the question
			// would have been sent by the earlier of the two strands.
			path.reach(min(asked, c.asked)+c.wire, min(hops, c.hops)+c.trip, s.now())
			return cloneAnswer(&c.answer)
		}
		// The sender gave up; the loop returns at once if ctx did too,
		// and otherwise asks again (bounded by the budget).
	}
}

// wait waits until done is closed (nil: the answer is in already) or
// ctx ends, and reports whether the answer is in. An answer already in
// is taken even when ctx has ended meanwhile: a lookup that the deadline
// ended (ReasonSlow, ReasonTimeout) says more than ReasonCanceled.
func wait(ctx context.Context, done <-chan struct{}) bool {
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	default:
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// claim returns the call for q, and whether the caller owns it and must
// send it. ok is false when q is new and the budget is spent. A caller
// that does not own the call waits on done for its answer; done is nil
// when the answer is in already.
func (s *Scan) claim(q question) (c *call, done <-chan struct{}, owner, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, found := s.calls[q]; found {
		if c.landed {
			return c, nil, false, true
		}
		if c.done == nil {
			c.done = make(chan struct{})
		}
		return c, c.done, false, true
	}
	if len(s.calls)+s.dropped >= s.budget {
		return nil, nil, false, false
	}
	c = &call{q: q}
	s.calls[q] = c
	return c, nil, true, true
}

// run sends q to the wrapped resolver and publishes the answer to every
// waiter. A canceled lookup is not cached: a later caller with a live
// context asks again (the canceled attempt still counts against the
// budget). A panic in the wrapped resolver becomes an Inconclusive answer
// with ReasonMalformed, published and cached like any other: lookups run
// in the protocol packages' helper goroutines, where an unrecovered panic
// would end the whole process (the service with it), and the call lands
// either way (land) so that no waiter hangs.
func (s *Scan) run(ctx context.Context, q question, c *call) {
	// The call's own fields hold what the deferred call needs, rather
	// than this frame, under which the lookup waits.
	c.start = s.now()
	// The answer is published by a deferred call, which a panic below
	// reaches too, rather than from a function literal that recovers:
	// one frame fewer under every lookup in flight.
	defer s.land(c)
	c.answer = s.next.Lookup(context.WithValue(ctx, noteKey{}, &c.note), q.name, q.qtype)
	c.answered = true
	s.publish(q, c)
}

// land publishes a failure when the resolver below c's lookup panicked
// (see run), marks c's answer in and releases its waiters, if any.
func (s *Scan) land(c *call) {
	if !c.answered && recover() != nil {
		c.answer = Fail(ReasonMalformed)
		s.publish(c.q, c)
	}
	s.mu.Lock()
	c.landed = true
	if c.done != nil {
		close(c.done)
	}
	s.mu.Unlock()
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
