package redact

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestAttackConcurrentScansShareCacheAndVocabulary: scans sharing one
// Cache (with memos) and one Vocabulary record, verify and look up at
// once; under -race no data race, and each scan finds every value its own
// answers carried.
func TestAttackConcurrentScansShareCacheAndVocabulary(t *testing.T) {
	upstream := resolver.Func(func(ctx context.Context, n string, qt resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: n, Type: resolver.TypeTXT, TTL: 300,
			TXT: []string{"v=spf1 include:", "inc-" + n + " ip4:192.0.2.9 -all"}}}}
	})
	cache := resolver.NewCache(upstream, 0)
	v := NewVocabulary("The record ends in -all; p=reject mx.", "include")
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			s := NewSet()
			s.UseVocabulary(v)
			r := s.Resolver(cache)
			for i := range 40 {
				name := fmt.Sprintf("h%d.shared.example", i%10)
				if g%2 == 0 {
					name = fmt.Sprintf("own%d-%d.example", g, i)
				}
				a := r.Lookup(context.Background(), name, resolver.TypeTXT)
				if a.Outcome != resolver.Found {
					t.Errorf("lookup failed: %v", a.Reason)
					return
				}
				s.AddText(fmt.Sprintf("policy text mx: mx%d-%d.policy.example", g, i))
				out := fmt.Sprintf(`{"a":"INC-%s","b":"mx%d-%d.policy.example"}`, name, g, i)
				if err := s.Verify([]byte(out)); !assert.ErrorIs(t, err, ErrLeak) {
					return
				}
				assert.True(t, s.Contains("x inc-"+name+" y"))
				assert.True(t, s.Contains(" 192.0.2.9"))
			}
		})
	}
	wg.Wait()
}
