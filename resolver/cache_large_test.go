package resolver_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// largeTXT is a TXT record's data of n strings of 250 octets.
func largeTXT(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `"` + strings.Repeat("x", 250) + `"`
	}
	return strings.Join(parts, " ")
}

// TestCacheLargeAnswersKeepToTheirShare: answers of about 16 KB, asked
// after a cache full of small provider records, take at most 1/16 of the
// bound and evict only each other: every small answer is still held.
func TestCacheLargeAnswersKeepToTheirShare(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(cacheZone)
	const small, large = 300, 100
	for i := range small {
		fmt.Fprintf(&b, "n%d 3600 TXT \"v=spf1 include:_spf%d.provider.test -all\"\n", i, i)
	}
	for i := range large {
		fmt.Fprintf(&b, "big%d 3600 TXT %s\n", i, largeTXT(64))
	}
	mem := dnstest.NewResolver(dnstest.MustParse(t, b.String()))
	const bound = 1 << 20
	c := resolver.NewCache(mem, bound)
	ctx := context.Background()
	for i := range small {
		c.Lookup(ctx, fmt.Sprintf("n%d.cache.test", i), resolver.TypeTXT)
	}
	held := c.Stats()
	require.Equal(t, small, held.Entries, "the small answers fit")
	for i := range large {
		a := c.Lookup(ctx, fmt.Sprintf("big%d.cache.test", i), resolver.TypeTXT)
		require.Equal(t, resolver.Found, a.Outcome)
		st := c.Stats()
		assert.LessOrEqual(t, st.Bytes-held.Bytes, bound/16, "large answers past their share")
		assert.LessOrEqual(t, st.Bytes, bound)
	}
	st := c.Stats()
	assert.Positive(t, st.Large, "large answers are kept, within their share")
	assert.Less(t, st.Large, large)
	for i := range small {
		c.Lookup(ctx, fmt.Sprintf("n%d.cache.test", i), resolver.TypeTXT)
		assert.Equal(t, 1, mem.Count(fmt.Sprintf("n%d.cache.test", i), resolver.TypeTXT), "small answer %d was evicted", i)
	}
}

// TestCacheMemo: an answer asked below comes without a memo; once held,
// its memo is computed once, handed to every caller asking with the same
// key, and an answer that is not held never gets one.
func TestCacheMemo(t *testing.T) {
	t.Parallel()
	mem := dnstest.NewResolver(dnstest.MustParse(t, cacheZone))
	c := resolver.NewCache(mem, 0)
	var _ resolver.Memoizer = c
	ctx := context.Background()
	var computed atomic.Int32
	key := new(int)
	compute := func(a resolver.Answer) (any, int) {
		computed.Add(1)
		return len(a.Records), 8
	}
	a, memo := c.LookupMemo(ctx, "short.cache.test", resolver.TypeTXT, key, compute)
	require.Equal(t, resolver.Found, a.Outcome)
	assert.Nil(t, memo, "an answer asked below comes without a memo")
	for range 3 {
		a, memo := c.LookupMemo(ctx, "short.cache.test", resolver.TypeTXT, key, compute)
		require.Equal(t, resolver.Found, a.Outcome)
		assert.Equal(t, len(a.Records), memo)
	}
	assert.Equal(t, int32(1), computed.Load(), "computed once for the held answer")
	_, memo = c.LookupMemo(ctx, "short.cache.test", resolver.TypeTXT, new(int), compute)
	assert.NotNil(t, memo, "another key computes its own")
	assert.Equal(t, int32(2), computed.Load())
	// A negative answer without an SOA is not held: never a memo.
	for range 2 {
		_, memo := c.LookupMemo(ctx, "missing.cache.test", resolver.TypeTXT, key, compute)
		assert.Nil(t, memo)
	}
	assert.Equal(t, int32(2), computed.Load())
}
