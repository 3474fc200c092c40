package resolver

import (
	"context"
	"sync"
	"time"
)

// DefaultBudget is the number of distinct questions one scan may send
// (issue #2). The per-check bounds of the RFCs (SPF §4.6.4: 10 terms,
// DMARC §4.10: 8 targets, PTR: 8 forward lookups, …) sum to well below it.
const DefaultBudget = 120

// Scan wraps a Resolver for the life of one scan. Identical questions
// (same name, any case, and type) asked concurrently go to the wire once
// and share the answer; later identical questions are answered from the
// scan's cache. Every distinct question counts against the budget; past
// it, lookups return Inconclusive with ReasonBudgetExhausted at once.
//
// A Scan is safe for concurrent use. Its zero value is not usable; call
// [NewScan].
type Scan struct {
	next   Resolver
	budget int
	now    func() time.Time

	mu    sync.Mutex
	calls map[question]*call
	log   []Query
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
	done   chan struct{}
	answer Answer
}

// NewScan returns a per-scan resolver over next with the given query
// budget; budget <= 0 means DefaultBudget.
func NewScan(next Resolver, budget int) *Scan {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Scan{next: next, budget: budget, now: time.Now, calls: make(map[question]*call)}
}

// Lookup implements Resolver.
func (s *Scan) Lookup(ctx context.Context, name string, qtype Type) Answer {
	q := question{CanonicalName(name), qtype}
	s.mu.Lock()
	c, ok := s.calls[q]
	if !ok {
		if len(s.calls) >= s.budget {
			s.mu.Unlock()
			return Fail(ReasonBudgetExhausted)
		}
		c = &call{done: make(chan struct{})}
		s.calls[q] = c
		s.mu.Unlock()
		s.run(ctx, q, c)
	} else {
		s.mu.Unlock()
	}
	select {
	case <-c.done:
		return c.answer
	case <-ctx.Done():
		return Fail(ReasonCanceled)
	}
}

// run sends q to the wrapped resolver and publishes the answer to every
// waiter. A canceled lookup is not cached: a later caller with a live
// context asks again (it still counts once against the budget).
func (s *Scan) run(ctx context.Context, q question, c *call) {
	start := s.now()
	a := s.next.Lookup(ctx, q.name, q.qtype)
	end := s.now()
	s.mu.Lock()
	s.log = append(s.log, Query{Name: q.name, Type: q.qtype, Start: start, End: end, Outcome: a.Outcome, Reason: a.Reason})
	if a.Reason == ReasonCanceled {
		delete(s.calls, q)
		s.budget-- // the attempt was spent
	}
	s.mu.Unlock()
	c.answer = a
	close(c.done)
}

// Queries returns the number of questions sent below this Scan.
func (s *Scan) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// Log returns a copy of the questions sent below this Scan, in the order
// they completed.
func (s *Scan) Log() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Query(nil), s.log...)
}

// Func adapts a function to the Resolver interface.
type Func func(ctx context.Context, name string, qtype Type) Answer

// Lookup implements Resolver.
func (f Func) Lookup(ctx context.Context, name string, qtype Type) Answer {
	return f(ctx, name, qtype)
}
