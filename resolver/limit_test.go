package resolver_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

func TestLimit(t *testing.T) {
	var calls atomic.Int32
	next := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		calls.Add(1)
		return resolver.Answer{Outcome: resolver.NoData}
	})
	l := resolver.Limit(next, 2)
	ctx := context.Background()
	for _, q := range []struct {
		name  string
		qtype resolver.Type
		want  resolver.Outcome
	}{
		{"a.test", resolver.TypeTXT, resolver.NoData},
		{"A.test.", resolver.TypeTXT, resolver.NoData}, // same question: no new budget
		{"b.test", resolver.TypeMX, resolver.NoData},
		{"c.test", resolver.TypeA, resolver.Inconclusive}, // third distinct question
		{"a.test", resolver.TypeTXT, resolver.NoData},     // asked before: still allowed
	} {
		a := l.Lookup(ctx, q.name, q.qtype)
		require.Equal(t, q.want, a.Outcome, "%s %s", q.name, q.qtype)
		if a.Outcome == resolver.Inconclusive {
			require.Equal(t, resolver.ReasonBudgetExhausted, a.Reason, "reason")
		}
	}
	require.EqualValues(t, 4, calls.Load(), "calls reached the resolver below, want 4 (the refused one must not)")
}
