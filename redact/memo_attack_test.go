package redact

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// raceMemoizer is a Cache whose first memo computation is slow: while it
// runs, another scan (here, the same goroutine, for determinism) finds the
// held answer expired and asks again, so that the Cache holds a new answer
// by the time the memo of the old one is attached.
type raceMemoizer struct {
	*resolver.Cache
	once atomic.Bool
	name string
}

func (c *raceMemoizer) LookupMemo(ctx context.Context, name string, qtype resolver.Type, key any, compute func(resolver.Answer) (any, int)) (resolver.Answer, any) {
	return c.Cache.LookupMemo(ctx, name, qtype, key, c.slowFirst(ctx, qtype, compute))
}

// StartMemo races as LookupMemo does: the recorder starts its lookups.
func (c *raceMemoizer) StartMemo(ctx context.Context, name string, qtype resolver.Type, key any, compute func(resolver.Answer) (any, int), done func(resolver.Answer, any)) {
	c.Cache.StartMemo(ctx, name, qtype, key, c.slowFirst(ctx, qtype, compute), done)
}

func (c *raceMemoizer) slowFirst(ctx context.Context, qtype resolver.Type, compute func(resolver.Answer) (any, int)) func(resolver.Answer) (any, int) {
	return func(a resolver.Answer) (any, int) {
		if c.once.CompareAndSwap(false, true) {
			time.Sleep(1100 * time.Millisecond) // the held answer (TTL 1 s) expires
			c.Cache.Lookup(ctx, c.name, qtype)  // a parallel scan asks again: a new answer is held
		}
		return compute(a)
	}
}

// TestAttackMemoOfOldAnswerAttachedToNewAnswer: Cache.attach keeps the
// memo computed from the answer claim returned with whatever entry holds
// the question when the computation ends. If that entry is a newer answer
// (the old expired, or was invalidated as contradicted, and a parallel
// scan stored a fresh one meanwhile), every later scan gets the new answer
// with the old answer's values: the new answer's values are never
// recorded, and the guard passes an output that carries them.
func TestAttackMemoOfOldAnswerAttachedToNewAnswer(t *testing.T) {
	const name = "_dmarc.victim.example"
	var calls atomic.Int32
	upstream := resolver.Func(func(ctx context.Context, n string, qt resolver.Type) resolver.Answer {
		txt := "v=spf1 include:old-value.example -all"
		if calls.Add(1) > 1 {
			txt = "v=spf1 include:fresh-secret.example -all"
		}
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: n, Type: resolver.TypeTXT, TTL: 1, TXT: []string{txt}}}}
	})
	cache := resolver.NewCache(upstream, 0)
	v := NewVocabulary("The record ends in -all.")
	ctx := context.Background()

	// Scan 0 fills the cache (answer 1, no memo: it came from the wire).
	s0 := NewSet()
	s0.UseVocabulary(v)
	s0.Resolver(cache).Lookup(ctx, name, resolver.TypeTXT)

	// Scan 1 gets answer 1 from the cache and computes its memo, slowly.
	s1 := NewSet()
	s1.UseVocabulary(v)
	s1.Resolver(&raceMemoizer{Cache: cache, name: name}).Lookup(ctx, name, resolver.TypeTXT)

	// Scan 2 gets the held answer (answer 2) with the memo attached to it.
	s2 := NewSet()
	s2.UseVocabulary(v)
	a := s2.Resolver(cache).Lookup(ctx, name, resolver.TypeTXT)
	require.Equal(t, resolver.Found, a.Outcome)
	require.Contains(t, strings.Join(a.TXTs(), " "), "fresh-secret.example")
	out := []byte(`{"note":"include fresh-secret.example"}`)
	assert.ErrorIs(t, s2.Verify(out), ErrLeak, "scan 2 handed out fresh-secret.example yet did not record it")
}
