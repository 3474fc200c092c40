package resolver_test

import (
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// TestTraceAtTombstonePortEvicts: a forger won the race for a question
// and its answer is cached. Whatever else it then sends to that port (it
// knows it: it forged on it) evicts the forgery while the lookup's
// queries are tombstones, without the server's real reply: a flood at the
// port can keep that reply out (the kernel drops what a full receive
// buffer cannot take), so one trace of someone there is enough. Here one
// datagram: an unknown ID, the query's ID with another question, the
// query's ID and question in the wrong case; or an ICMP error (needs a
// raw socket). Each costs one more question. The control, nothing more
// sent, keeps the answer.
func TestTraceAtTombstonePortEvicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		trace func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr)
		evict bool
	}{
		{"nothing", func(*testing.T, *rawServer, *dns.Msg, net.Addr) {}, false},
		{"unknown ID", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			m := answerA(q, "192.0.2.66")
			m.Id ^= 0x5a5a
			srv.send(t, m, to)
		}, true},
		{"another question", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			m := answerA(q, "192.0.2.66")
			m.Question[0].Name = "other.example."
			srv.send(t, m, to)
		}, true},
		{"wrong case", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			m := answerA(q, "192.0.2.66")
			m.Question[0].Name = flipCase(m.Question[0].Name)
			srv.send(t, m, to)
		}, true},
		{"ICMP", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			f := newICMPForger(t)
			require.NoError(t, f.portUnreachable(to.(*net.UDPAddr).AddrPort(), netip.MustParseAddrPort(srv.addr())))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
			resolver.SetTombstone(c, time.Minute) // the trace comes within it, however slow the machine
			cache := resolver.NewCache(c, 0)
			var mu sync.Mutex
			var first *dns.Msg
			var from net.Addr
			srv := startRaw(t, func(s *rawServer, q *dns.Msg, to net.Addr) {
				mu.Lock()
				defer mu.Unlock()
				if first == nil {
					first, from = q, to
				}
				m := answerA(q, "192.0.2.66") // the forger's answer, taken; the real reply never comes
				m.Answer[0].Header().Ttl = 3600
				s.send(t, m, to)
			})
			c.Servers = []string{srv.addr()}
			a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
			require.Equal(t, []string{"192.0.2.66"}, addrsOf(a))
			require.Equal(t, 1, cache.Stats().Entries)
			mu.Lock()
			q, to := first, from
			mu.Unlock()
			tc.trace(t, srv, q, to)
			if !tc.evict {
				// Nothing is sent: the answer stays. A datagram the
				// client reads is counted; none was, so this looks at a
				// state that cannot change by itself.
				assert.Equal(t, 1, cache.Stats().Entries)
				assert.Zero(t, cache.Stats().Invalidated)
				return
			}
			require.True(t, eventually(func() bool { return cache.Stats().Invalidated == 1 }), "the trace did not evict the answer")
			assert.Zero(t, cache.Stats().Entries)
			cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
			assert.Equal(t, 2, srv.queries(), "asked the wire again")
		})
	}
}

// flipCase swaps the case of every ASCII letter of name.
func flipCase(name string) string {
	b := []byte(name)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
