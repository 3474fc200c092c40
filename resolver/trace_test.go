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

// TestFloodAtTombstonePortEvicts: a forger won the race for a question
// and its answer is cached; the real reply never comes here. A flood at
// that port (the forger knows it: it forged on it) could keep the real
// reply out, since the kernel drops what a full receive buffer cannot
// take; so while the lookup's queries are tombstones, floodTrace
// datagrams read there that no query could take, or copies of the reply
// taken, evict the answer without that reply. One such datagram, which a
// sweep of every port sends each, evicts nothing: nor does an ICMP error
// (needs a raw socket), which hides no reply. An eviction costs one more
// question.
func TestFloodAtTombstonePortEvicts(t *testing.T) {
	t.Parallel()
	unknownID := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Id ^= 0x5a5a
		return m
	}
	otherQuestion := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Question[0].Name = "other.example."
		return m
	}
	wrongCase := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Question[0].Name = flipCase(m.Question[0].Name)
		return m
	}
	theForgery := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Answer[0].Header().Ttl = 3600
		return m
	}
	datagrams := func(n int, build func(*dns.Msg) *dns.Msg) func(*testing.T, *rawServer, *dns.Msg, net.Addr) {
		return func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			for range n {
				srv.send(t, build(q), to)
			}
		}
	}
	// A case that evicts nothing ends once the client has counted drops
	// dropped datagrams (or ICMP errors): what was sent before them on
	// the port was read before them.
	for _, tc := range []struct {
		name    string
		trace   func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr)
		evict   bool
		dropped uint64
	}{
		{"nothing", func(*testing.T, *rawServer, *dns.Msg, net.Addr) {}, false, 0},
		{"one unknown ID", datagrams(1, unknownID), false, 1},
		{"one copy of the forgery", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			srv.send(t, theForgery(q), to)
			srv.send(t, unknownID(q), to)
		}, false, 1},
		{"one short of a flood", datagrams(resolver.FloodTrace-1, unknownID), false, resolver.FloodTrace - 1},
		{"ICMP", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			f := newICMPForger(t)
			require.NoError(t, f.portUnreachable(to.(*net.UDPAddr).AddrPort(), netip.MustParseAddrPort(srv.addr())))
		}, false, 1},
		{"flood of unknown IDs", datagrams(resolver.FloodTrace, unknownID), true, 0},
		{"flood of another question", datagrams(resolver.FloodTrace, otherQuestion), true, 0},
		{"flood in the wrong case", datagrams(resolver.FloodTrace, wrongCase), true, 0},
		{"flood of copies of the forgery", datagrams(resolver.FloodTrace, theForgery), true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
			resolver.SetTombstone(c, time.Minute) // the datagrams come within it, however slow the machine
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
				s.send(t, theForgery(q), to) // taken; the real reply never comes
			})
			c.Servers = []string{srv.addr()}
			a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
			require.Equal(t, []string{"192.0.2.66"}, addrsOf(a))
			require.Equal(t, 1, cache.Stats().Entries)
			mu.Lock()
			q, to := first, from
			mu.Unlock()
			before := c.SpoofDrops()
			tc.trace(t, srv, q, to)
			if !tc.evict {
				require.True(t, eventually(func() bool { return dropsSince(c, before) >= tc.dropped }), "what was sent was not read")
				assert.Equal(t, 1, cache.Stats().Entries)
				assert.Zero(t, cache.Stats().Invalidated)
				return
			}
			require.True(t, eventually(func() bool { return cache.Stats().Invalidated == 1 }), "the flood did not evict the answer")
			assert.Zero(t, cache.Stats().Entries)
			cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
			assert.Equal(t, 2, srv.queries(), "asked the wire again")
		})
	}
}

// dropsSince returns how many datagrams c dropped (or ICMP errors it
// counted) since the counts before.
func dropsSince(c *resolver.Client, before map[string]uint64) uint64 {
	var n uint64
	for k, v := range c.SpoofDrops() {
		n += v - before[k]
	}
	return n
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
