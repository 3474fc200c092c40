package resolver_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestAttackLimitedAdmitRace: concurrent Admit and Lookup of distinct,
// repeated and case- or dot-variant names never admit more distinct
// questions than the limit, and Lookup past it never reaches next.
func TestAttackLimitedAdmitRace(t *testing.T) {
	var below atomic.Int32
	seen := sync.Map{}
	next := resolver.Func(func(ctx context.Context, name string, qt resolver.Type) resolver.Answer {
		below.Add(1)
		seen.Store(resolver.CanonicalName(name), true)
		return resolver.Answer{Outcome: resolver.NXDomain}
	})
	const limit = 5
	l := resolver.Limit(next, limit)
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				name := fmt.Sprintf("n%d.example", (g*50+i)%40)
				if i%2 == 0 {
					name = fmt.Sprintf("N%d.EXAMPLE.", (g*50+i)%40)
				}
				if i%3 == 0 {
					l.Lookup(context.Background(), name, resolver.TypeTXT)
				} else if l.Admit(name, resolver.TypeTXT) {
					admitted.Add(1)
					l.Next().Lookup(context.Background(), name, resolver.TypeTXT)
				}
			}
		})
	}
	wg.Wait()
	n := 0
	seen.Range(func(any, any) bool { n++; return true })
	assert.LessOrEqual(t, n, limit, "more distinct questions reached next than the limit")
	assert.False(t, l.Admit("fresh.example", resolver.TypeTXT))
	assert.False(t, l.Admit("n1.example", resolver.TypeA), "another type is another question")
}
