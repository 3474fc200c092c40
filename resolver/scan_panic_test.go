package resolver_test

import (
	"context"
	"testing"
	"time"

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
		t.Fatal("callers hang after a panic in the resolver")
	}
	answers = append(answers, s.Lookup(ctx, "boom.test", resolver.TypeTXT), s.Lookup(ctx, "nil.test", resolver.TypeA))
	for i, a := range answers {
		if a.Outcome != resolver.Inconclusive || a.Reason != resolver.ReasonMalformed {
			t.Errorf("answer %d: %v/%v, want inconclusive/malformed", i, a.Outcome, a.Reason)
		}
	}
	if a := s.Lookup(ctx, "fine.test", resolver.TypeTXT); a.Outcome != resolver.NXDomain {
		t.Errorf("another question after the panic: %v/%v", a.Outcome, a.Reason)
	}
	if n := s.Queries(); n != 3 {
		t.Errorf("%d questions sent, want 3 (boom once, nil, fine)", n)
	}
	for _, q := range s.Log() {
		if q.Name != "fine.test" && (q.Outcome != resolver.Inconclusive || q.Reason != resolver.ReasonMalformed) {
			t.Errorf("log of %s: %v/%v", q.Name, q.Outcome, q.Reason)
		}
	}
}
