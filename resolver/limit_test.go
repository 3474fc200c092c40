package resolver_test

import (
	"context"
	"fmt"
	"strings"
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

// TestLimitPastInline: a limit larger than the questions a Limited holds
// inline counts every distinct question once, before and after they
// outgrow it, and refuses the first past the limit.
func TestLimitPastInline(t *testing.T) {
	var calls atomic.Int32
	next := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		calls.Add(1)
		return resolver.Answer{Outcome: resolver.NoData}
	})
	const limit = 30
	l := resolver.Limit(next, limit)
	ctx := context.Background()
	for round := range 2 { // the second round asks the same questions again
		for i := range limit {
			name := fmt.Sprintf("n%d.test", i)
			if round == 1 {
				name = strings.ToUpper(name) + "."
			}
			require.Equal(t, resolver.NoData, l.Lookup(ctx, name, resolver.TypeTXT).Outcome, "round %d: %s", round, name)
		}
	}
	a := l.Lookup(ctx, "n0.test", resolver.TypeA) // a new type: a new question
	require.Equal(t, resolver.Inconclusive, a.Outcome, "question %d", limit+1)
	require.Equal(t, resolver.ReasonBudgetExhausted, a.Reason, "reason")
	require.EqualValues(t, 2*limit, calls.Load(), "calls reached the resolver below")
}
