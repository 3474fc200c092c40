package redact

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// countingMemoizer counts the memos a Cache computes.
type countingMemoizer struct {
	*resolver.Cache
	computed int
}

func (c *countingMemoizer) LookupMemo(ctx context.Context, name string, qtype resolver.Type, key any, compute func(resolver.Answer) (any, int)) (resolver.Answer, any) {
	return c.Cache.LookupMemo(ctx, name, qtype, key, c.counted(compute))
}

// StartMemo counts as LookupMemo does: the recorder starts its lookups.
func (c *countingMemoizer) StartMemo(ctx context.Context, name string, qtype resolver.Type, key any, compute func(resolver.Answer) (any, int), done func(resolver.Answer, any)) {
	c.Cache.StartMemo(ctx, name, qtype, key, c.counted(compute), done)
}

func (c *countingMemoizer) counted(compute func(resolver.Answer) (any, int)) func(resolver.Answer) (any, int) {
	return func(a resolver.Answer) (any, int) {
		c.computed++
		return compute(a)
	}
}

// valueSet returns the recorded values.
func (s *Set) valueSet() map[string]bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := map[string]bool{}
	for e := range int32(s.store.count) {
		out[string(s.store.value(e))] = true
	}
	return out
}

// TestResolverMemoRecordsTheSame: Sets recording through a shared Cache
// (the values kept with each answer) hold exactly what a Set recording
// the answers itself holds; once the values of a held answer are worked
// out, later scans tokenize nothing again.
func TestResolverMemoRecordsTheSame(t *testing.T) {
	z := dnstest.MustParse(t, `$ORIGIN example.test.
@ 300 TXT "v=spf1 include:_spf.canary-txt.test ip4:192.0.2.0/24 -all"
_dmarc 300 TXT "v=DMARC1; p=reject; rua=mailto:reports@canary-two.test"
@ 300 MX 10 mx-canary.example.test.
mx-canary 300 A 192.0.2.55
alias 300 CNAME target-canary.example.test.
target-canary 300 A 192.0.2.56
@ 300 CAA 0 iodef "mailto:sec@canary-caa.test"
`)
	v := NewVocabulary("The record ends in -all; p=reject mx.")
	questions := []struct {
		name  string
		qtype resolver.Type
	}{{"example.test", resolver.TypeTXT}, {"_dmarc.example.test", resolver.TypeTXT}, {"example.test", resolver.TypeMX},
		{"mx-canary.example.test", resolver.TypeA}, {"alias.example.test", resolver.TypeA}, {"example.test", resolver.TypeCAA}}
	scan := func(next resolver.Resolver) *Set {
		s := NewSet()
		s.UseVocabulary(v)
		r := s.Resolver(next)
		for _, q := range questions {
			r.Lookup(context.Background(), q.name, q.qtype)
		}
		return s
	}
	want := scan(dnstest.NewResolver(z))
	require.NotEmpty(t, want.valueSet())
	shared := &countingMemoizer{Cache: resolver.NewCache(dnstest.NewResolver(z), 0)}
	first := scan(shared)
	assert.Zero(t, shared.computed, "answers fresh from the wire are recorded directly")
	second := scan(shared)
	assert.Equal(t, len(questions), shared.computed, "the first scan served from the cache works each answer's values out once")
	third := scan(shared)
	assert.Equal(t, len(questions), shared.computed, "the third scan reused every held answer's values")
	assert.Equal(t, want.valueSet(), first.valueSet())
	assert.Equal(t, want.valueSet(), second.valueSet())
	assert.Equal(t, want.valueSet(), third.valueSet())
	for _, val := range []string{"_spf.canary-txt.test", "canary-two.test", "mx-canary.example.test", "192.0.2.55", "target-canary.example.test", "canary-caa.test"} {
		assert.True(t, third.Contains("x "+val+" y"), val)
	}
}
