package resolver

import (
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// udpServer listens on addr and answers each query with one A record,
// unless mute; it records the source port of every query.
type udpServer struct {
	pc    net.PacketConn
	done  chan struct{}
	mu    sync.Mutex
	ports map[int]int // source port → queries from it
}

func listenUDP(t *testing.T, addr string, mute bool) *udpServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", addr)
	require.NoError(t, err)
	u := &udpServer{pc: pc, done: make(chan struct{}), ports: map[int]int{}}
	go u.serve(mute)
	t.Cleanup(u.close)
	return u
}

func (u *udpServer) serve(mute bool) {
	defer close(u.done)
	buf := make([]byte, 4096)
	for {
		n, from, err := u.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		q := new(dns.Msg)
		if q.Unpack(buf[:n]) != nil || len(q.Question) != 1 {
			continue
		}
		u.mu.Lock()
		u.ports[from.(*net.UDPAddr).Port]++
		u.mu.Unlock()
		if mute {
			continue
		}
		m := new(dns.Msg)
		m.SetReply(q)
		m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: q.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(192, 0, 2, 1).To4()}}
		if b, err := m.Pack(); err == nil {
			_, _ = u.pc.WriteTo(b, from)
		}
	}
}

func (u *udpServer) close() {
	u.pc.Close()
	<-u.done
}

func (u *udpServer) queries() map[int]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[int]int{}
	for p, n := range u.ports {
		out[p] = n
	}
	return out
}

func queryEntry(t *testing.T, name string) entry {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(name, dns.TypeA)
	b, err := q.Pack()
	require.NoError(t, err)
	return entry{q: q.Question[0], w: &waiter{ch: make(chan reply, replyQueue)}, wire: b}
}

// TestUnreachableResendsInFlight: an ICMP "port unreachable" reaches a
// socket while four queries are in flight on it (the server restarted;
// an off-path forger who knows the port can send the same). The queries
// do not fail: the socket is retired, they are sent again from a fresh
// port and answered there, and the socket closes once they are released.
func TestUnreachableResendsInFlight(t *testing.T) {
	t.Parallel()
	first := listenUDP(t, "127.0.0.1:0", true)
	server := first.pc.LocalAddr().String()
	raddr, err := net.ResolveUDPAddr("udp", server)
	require.NoError(t, err)
	conn, err := net.DialUDP("udp", nil, raddr)
	require.NoError(t, err)
	p := &pool{}
	// A socket without its reader yet, so that the test reads the ICMP
	// error itself before the server is back.
	s := &socket{pool: p, key: server, conn: conn, born: time.Now(), pending: map[uint16]entry{}}
	p.socks = map[string][]*socket{server: {s}}
	port := conn.LocalAddr().(*net.UDPAddr).Port

	var entries []entry
	var tickets []ticket
	for i := range 3 {
		e := queryEntry(t, fmt.Sprintf("q%d.example.test.", i))
		tk, err := s.transmit(e)
		require.NoError(t, err)
		entries, tickets = append(entries, e), append(tickets, tk)
	}
	require.Eventually(t, func() bool { return first.queries()[port] == 3 }, 5*time.Second, 5*time.Millisecond, "the server got the three queries")
	first.close()
	e := queryEntry(t, "q3.example.test.")
	tk, err := s.transmit(e) // to the closed port: port unreachable
	require.NoError(t, err)
	entries, tickets = append(entries, e), append(tickets, tk)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Read(make([]byte, 512))
	require.ErrorIs(t, err, syscall.ECONNREFUSED, "the kernel reports the ICMP error")
	require.NoError(t, conn.SetReadDeadline(time.Time{}))

	second := listenUDP(t, server, false)
	go s.read()
	s.unreachable() // what read does with the error

	for i, e := range entries {
		select {
		case r := <-e.w.ch:
			assert.Equal(t, ReasonNone, r.reason, "query %d", i)
			if assert.NotNil(t, r.msg, "query %d", i) {
				assert.Equal(t, e.q, r.msg.Question[0], "query %d", i)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("query %d: no reply", i)
		}
	}
	got := second.queries()
	assert.Zero(t, got[port], "nothing new leaves from the refused socket")
	assert.Equal(t, 4, sum(got), "each query sent again once")
	assert.False(t, s.usable(), "the refused socket is retired")

	for _, tk := range tickets {
		tk.s.release(tk.id)
	}
	s.mu.Lock()
	assert.True(t, s.closed, "the retired socket closes after its last query")
	s.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range p.socks[server] {
		o.mu.Lock()
		assert.Empty(t, o.pending, "released with the query it was resent for")
		o.mu.Unlock()
	}
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
