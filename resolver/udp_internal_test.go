package resolver

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func queryEntry(t *testing.T, u *upstream, name string) entry {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(name, dns.TypeA)
	q.SetEdns0(DefaultUDPSize, false)
	e, err := u.entry(q, 0, newWaiter())
	require.NoError(t, err)
	return e
}

// TestICMPKeepsQueriesOpen: an ICMP "port unreachable" reaches a socket
// while a query is in flight on it (the server restarted; an off-path
// forger who knows the port can send the same). The query is not failed:
// the error is counted and marked on the query, the socket takes no new
// query, and the reply that comes after it is still delivered.
func TestICMPKeepsQueriesOpen(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	server := pc.LocalAddr().String()
	require.NoError(t, pc.Close()) // nobody listens: loopback answers port unreachable
	p := &pool{}
	u := p.upstream(server, nil, DefaultUDPSize)
	s, err := u.dial(socketBatch)
	require.NoError(t, err)
	t.Cleanup(func() { s.retire() })

	e := queryEntry(t, u, "q.example.test.")
	id, ok := s.register(e)
	require.True(t, ok)
	require.NoError(t, s.write(id, e.wire))
	require.Eventually(t, func() bool { return p.drops[dropICMP].Load() == 1 }, 30*time.Second, 5*time.Millisecond, "the reader sees the ICMP error")
	assert.True(t, e.icmp.Load(), "the query in flight is marked")
	_, ok = s.register(queryEntry(t, u, "r.example.test."))
	assert.False(t, ok, "the socket takes no new query")

	// The server is back, and answers the query in flight.
	back, err := net.ListenPacket("udp", server)
	require.NoError(t, err)
	defer back.Close()
	m := new(dns.Msg)
	m.SetQuestion(e.q.Name, dns.TypeA)
	m.Id, m.Response = id, true
	b, err := m.Pack()
	require.NoError(t, err)
	_, err = back.WriteTo(b, s.conn.LocalAddr())
	require.NoError(t, err)
	select {
	case r := <-e.w.ch:
		require.NotNil(t, r.msg, "the reply, not a failure")
		assert.Equal(t, e.q, r.msg.Question[0])
	case <-time.After(30 * time.Second):
		t.Fatal("no reply delivered")
	}
	s.release(id)
	s.mu.Lock()
	assert.True(t, s.closed, "the retired socket closes after its last query")
	s.mu.Unlock()
}

func TestICMPError(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		assert.True(t, icmpError(&net.OpError{Op: "read", Err: errno}), "%v", errno)
	}
	assert.False(t, icmpError(&net.OpError{Op: "write", Err: syscall.EINVAL}))
}
