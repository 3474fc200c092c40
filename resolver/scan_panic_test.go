package resolver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// TestScanRecoversPanic: a panic in the wrapped resolver becomes an
// Inconclusive answer with ReasonMalformed for the caller and for every
// waiter on the same question (none hangs), is cached and logged like any
// answer, and leaves other questions working.
func TestScanRecoversPanic(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	next := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		switch name {
		case "boom.test":
			<-release
			panic("resolver bug")
		case "nil.test":
			panic(nil)
		}
		return resolver.Answer{Outcome: resolver.NXDomain}
	})
	s := resolver.NewScan(next, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan []resolver.Answer, 1)
	go func() { done <- lookupAll(ctx, s, 8, resolver.TypeTXT, "boom.test", "BOOM.test.") }()
	time.Sleep(20 * time.Millisecond) // let some callers wait on the running question
	close(release)
	var answers []resolver.Answer
	select {
	case answers = <-done:
	case <-ctx.Done():
		require.FailNow(t, "callers hang after a panic in the resolver")
	}
	answers = append(answers, s.Lookup(ctx, "boom.test", resolver.TypeTXT), s.Lookup(ctx, "nil.test", resolver.TypeA))
	for i, a := range answers {
		assert.Equal(t, resolver.Inconclusive, a.Outcome, "answer %d: %v/%v, want inconclusive/malformed", i, a.Outcome, a.Reason)
		assert.Equal(t, resolver.ReasonMalformed, a.Reason, "answer %d: %v/%v, want inconclusive/malformed", i, a.Outcome, a.Reason)
	}
	a := s.Lookup(ctx, "fine.test", resolver.TypeTXT)
	assert.Equal(t, resolver.NXDomain, a.Outcome, "another question after the panic: %v/%v", a.Outcome, a.Reason)
	assert.Equal(t, 3, s.Queries(), "questions sent, want 3 (boom once, nil, fine)")
	for _, q := range s.Log() {
		if q.Name != "fine.test" {
			assert.Equal(t, resolver.Inconclusive, q.Outcome, "log of %s: %v/%v", q.Name, q.Outcome, q.Reason)
			assert.Equal(t, resolver.ReasonMalformed, q.Reason, "log of %s: %v/%v", q.Name, q.Outcome, q.Reason)
		}
	}
}
