package resolver_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// TestAttackLateFloodAfterQueueFreed: once a lookup took its UDP answer,
// its reply queue is freed (w.queue = nil) while its tombstones stay. A
// forger then floods the query's ID and question with many more replies
// than the queue held (agreeing ones, then one that contradicts the taken
// answer), while another lookup is in flight on the same Client. Nothing
// panics or blocks, the other lookup takes none of them, and the
// contradiction still evicts the cached answer.
func TestAttackLateFloodAfterQueueFreed(t *testing.T) {
	t.Parallel()
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	resolver.SetTombstone(c, spoofTimeout)
	cache := resolver.NewCache(c, 0)
	var first atomic.Bool
	otherAsked := make(chan struct{})
	var otherOnce sync.Once
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if q.Question[0].Name != "" && dns.CanonicalName(q.Question[0].Name) == "other.victim.example." {
			otherOnce.Do(func() { close(otherAsked) })
			// The other lookup's answer is sent only after the flood.
			go func() {
				<-otherAsked
				if !eventually(func() bool { return cache.Stats().Entries == 0 && first.Load() }) {
					return
				}
				s.send(t, answerA(q, "192.0.2.7"), from)
			}()
			return
		}
		if !first.CompareAndSwap(false, true) {
			s.send(t, answerA(q, "192.0.2.1"), from)
			return
		}
		ok := answerA(q, "192.0.2.1")
		ok.Answer[0].Header().Ttl = 3600
		s.send(t, ok, from)
		if !eventually(func() bool { return cache.Stats().Entries == 1 }) {
			t.Errorf("the answer was not cached")
			return
		}
		<-otherAsked
		for range 100 { // far past replyQueue, all after the queue was freed
			s.send(t, ok, from)
		}
		s.send(t, answerA(q, "192.0.2.66"), from) // a contradiction, late
	})
	c.Servers = []string{srv.addr()}

	var other resolver.Answer
	var wg sync.WaitGroup
	a := cache.Lookup(t.Context(), "_dmarc.victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	wg.Go(func() { other = c.Lookup(context.Background(), "other.victim.example", resolver.TypeA) })
	assert.True(t, eventually(func() bool { return cache.Stats().Entries == 0 }), "the late contradiction did not evict the answer")
	wg.Wait()
	assert.Equal(t, []string{"192.0.2.7"}, addrsOf(other), "the other lookup took a reply to another query")
}
