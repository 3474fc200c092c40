package resolver

import (
	"context"
	"slices"
	"sync"
)

// Limited bounds the distinct questions one part of a scan may ask, so
// that a check with a large but valid fan-out (an SPF policy with many
// include and mx terms) cannot spend the whole per-scan budget and leave
// its siblings inconclusive. Place it above the shared Scan: a question
// counts once against the limit however often it is asked, and a
// question another check already asked still counts here (the Scan
// answers it from its cache).
type Limited struct {
	next  Resolver
	limit int

	mu sync.Mutex
	// asked holds the questions admitted, in small while they fit: most
	// checks ask a handful. Admit searches it in order: the limit bounds
	// its length, and a check's own limits (RFC 7208's ten lookups of
	// ten MX names each for SPF, the largest) keep it to a few dozen, or
	// a few hundred at most, where a search costs less than hashing.
	asked []question
	small [limitedInline]question
}

// limitedInline is how many admitted questions a Limited holds without
// an allocation of its own.
const limitedInline = 8

// Limit returns next bounded to limit distinct questions; past it, new
// questions are inconclusive with ReasonBudgetExhausted at once. Questions
// already asked may be asked again.
func Limit(next Resolver, limit int) *Limited {
	l := &Limited{next: next, limit: limit}
	l.asked = l.small[:0]
	return l
}

// Lookup implements Resolver.
func (l *Limited) Lookup(ctx context.Context, name string, qtype Type) Answer {
	return lookupVia(ctx, l.Start, name, qtype)
}

// Start implements [Starter].
func (l *Limited) Start(ctx context.Context, name string, qtype Type, done func(Answer)) {
	if !l.Admit(name, qtype) {
		done(Fail(ReasonBudgetExhausted))
		return
	}
	Start(ctx, l.next, name, qtype, done)
}

// Admit counts the question against the limit and reports whether it may
// be asked: a question already admitted always may. A wrapper that asks
// l's Resolver itself after Admit, rather than calling Lookup, saves a
// frame on the stack of every lookup in flight.
func (l *Limited) Admit(name string, qtype Type) bool {
	q := question{CanonicalName(name), qtype}
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.asked, q) {
		return true
	}
	if len(l.asked) >= l.limit {
		return false
	}
	l.asked = append(l.asked, q)
	return true
}

// Next returns the Resolver l asks the questions it admits.
func (l *Limited) Next() Resolver { return l.next }
