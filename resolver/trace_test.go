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

// TestTraceAtTombstonePortKeeps: a lookup's answer is cached and its
// queries are tombstones. What a sweep of the ports sends each port (one
// datagram no query can take), a copy of the reply taken, or an ICMP
// error (needs a raw socket) evicts nothing: none fills the socket's
// receive buffer to keep a reply out (see TestKernelDropsEvict).
func TestTraceAtTombstonePortKeeps(t *testing.T) {
	t.Parallel()
	unknownID := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Id ^= 0x5a5a
		return m
	}
	taken := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.66")
		m.Answer[0].Header().Ttl = 3600
		return m
	}
	// Each case ends once the client has counted dropped dropped
	// datagrams (or ICMP errors): what was sent before them on the port
	// was read before them.
	for _, tc := range []struct {
		name    string
		trace   func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr)
		dropped uint64
	}{
		{"nothing", func(*testing.T, *rawServer, *dns.Msg, net.Addr) {}, 0},
		{"unknown IDs", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			for range 8 {
				srv.send(t, unknownID(q), to)
			}
		}, 8},
		{"a copy of the reply taken", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			srv.send(t, taken(q), to)
			srv.send(t, unknownID(q), to)
		}, 1},
		{"ICMP", func(t *testing.T, srv *rawServer, q *dns.Msg, to net.Addr) {
			f := newICMPForger(t)
			require.NoError(t, f.portUnreachable(to.(*net.UDPAddr).AddrPort(), netip.MustParseAddrPort(srv.addr())))
		}, 1},
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
				s.send(t, taken(q), to)
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
			require.True(t, eventually(func() bool { return dropsSince(c, before) >= tc.dropped }), "what was sent was not read")
			assert.Equal(t, 1, cache.Stats().Entries)
			assert.Zero(t, cache.Stats().Invalidated)
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
