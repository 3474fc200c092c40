package resolver_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// rawServer is a UDP server on loopback that hands each query, with the
// address it came from, to a test function that writes whatever replies
// it likes.
type rawServer struct {
	pc   net.PacketConn
	wg   sync.WaitGroup
	mu   sync.Mutex
	from map[string]int // source address → queries from it
}

func startRaw(t *testing.T, h func(s *rawServer, q *dns.Msg, from net.Addr)) *rawServer {
	t.Helper()
	pc := listenUDPAndTCP(t)
	s := &rawServer{pc: pc, from: map[string]int{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		buf := make([]byte, 4096)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := new(dns.Msg)
			if q.Unpack(buf[:n]) != nil || len(q.Question) != 1 {
				continue
			}
			s.mu.Lock()
			s.from[from.String()]++
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				h(s, q, from)
			}()
		}
	}()
	t.Cleanup(func() {
		pc.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) addr() string { return s.pc.LocalAddr().String() }

// sources returns how many source addresses queries came from, and the
// most queries from one of them.
func (s *rawServer) sources() (n, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.from {
		most = max(most, q)
	}
	return len(s.from), most
}

// queries returns how many queries the server received.
func (s *rawServer) queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.from {
		n += q
	}
	return n
}

// send writes m to addr from the server's own socket.
func (s *rawServer) send(t *testing.T, m *dns.Msg, to net.Addr) {
	b, err := m.Pack()
	if err != nil {
		t.Errorf("pack: %v", err)
		return
	}
	_, _ = s.pc.WriteTo(b, to)
}

// answerA is the reply to q with one A record.
func answerA(q *dns.Msg, ip string) *dns.Msg {
	m := new(dns.Msg)
	m.SetReply(q)
	m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: q.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.ParseIP(ip).To4()}}
	return m
}

func addrsOf(a resolver.Answer) []string {
	var out []string
	for _, ip := range a.Addrs() {
		out = append(out, ip.String())
	}
	return out
}

// TestClientIgnoresMismatchedReplies: replies with another ID, another
// question or without the QR bit are dropped, and the real answer that
// follows them is taken.
func TestClientIgnoresMismatchedReplies(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		wrongID := answerA(q, "192.0.2.66")
		wrongID.Id = q.Id + 1
		s.send(t, wrongID, from)
		wrongName := answerA(q, "192.0.2.67")
		wrongName.Question[0].Name = "other.example.test."
		s.send(t, wrongName, from)
		wrongType := answerA(q, "192.0.2.68")
		wrongType.Question[0].Qtype = dns.TypeMX
		s.send(t, wrongType, from)
		notReply := answerA(q, "192.0.2.69")
		notReply.Response = false
		s.send(t, notReply, from)
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: 2 * time.Second, Attempts: 1}
	a := c.Lookup(t.Context(), "host.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	waitFor(t, func() bool { return resolver.Drops(c) >= 3 })
}

// TestClientIgnoresSpoofFromOtherPort: a reply with the right ID and
// question sent from another port of the server's address is never read
// (the socket is connected to the server's address and port); the real
// answer, sent after it, is taken.
func TestClientIgnoresSpoofFromOtherPort(t *testing.T) {
	t.Parallel()
	spoofer, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { spoofer.Close() })
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		b, err := answerA(q, "192.0.2.66").Pack()
		if err != nil {
			t.Errorf("pack: %v", err)
			return
		}
		_, _ = spoofer.WriteTo(b, from)
		time.Sleep(50 * time.Millisecond) // the spoof arrives first, whatever the scheduler does
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1} // a bound on a hang, not on speed
	for i := 0; i < 3; i++ {
		a := c.Lookup(t.Context(), fmt.Sprintf("host%d.example.test", i), resolver.TypeA)
		require.Equal(t, resolver.Found, a.Outcome, show(a))
		assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	}
}

// TestClientLateAnswerTaken: the server answers only the first attempt
// of a question, after the next attempts went out; the Client takes that
// answer (the first attempt's ID stays registered), as it must from a
// resolver that answers every question in 2.2 s.
func TestClientLateAnswerTaken(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		name := strings.ToLower(q.Question[0].Name)
		seen[name]++
		n := seen[name]
		mu.Unlock()
		if n > 1 {
			return // repeats are dropped, as a busy resolver does
		}
		// The answer waits for the next attempt: the test, not a sleep
		// against the Client's retry timer, makes it come after it.
		if !eventually(func() bool { mu.Lock(); defer mu.Unlock(); return seen[name] >= 2 }) {
			t.Errorf("the question was not asked again")
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: 200 * time.Millisecond}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a := c.Lookup(ctx, "late.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	mu.Lock()
	defer mu.Unlock()
	assert.GreaterOrEqual(t, seen["late.example.test."], 2, "the question was asked again before the answer came")
}

// TestClientSlowResolver: a resolver that answers every question in 2.2 s
// gives complete answers with the default schedule.
func TestClientSlowResolver(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.DelayAll(2200 * time.Millisecond)
	c := &resolver.Client{Servers: []string{srv.Addr()}}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, q := range []string{"a", "alias", "mx"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := c.Lookup(ctx, q+".resolver.test", resolver.TypeA)
			assert.True(t, a.Conclusive(), "%s: %s", q, show(a))
		}()
	}
	wg.Wait()
}

// TestClientDiscardingResolver: a resolver that drops the queries it
// cannot answer yet (Unbound's discard-timeout) and answers from its cache
// once it has resolved the name (here 2.5 s after the first query) is
// asked again until it answers.
func TestClientDiscardingResolver(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	first := map[string]time.Time{}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		name := strings.ToLower(q.Question[0].Name)
		mu.Lock()
		if first[name].IsZero() {
			first[name] = time.Now()
		}
		ready := time.Since(first[name]) >= 2500*time.Millisecond
		mu.Unlock()
		if ready {
			s.send(t, answerA(q, "192.0.2.1"), from)
		}
	})
	c := &resolver.Client{Servers: []string{srv.addr()}}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a := c.Lookup(ctx, "cached-later.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
}

// TestClientLateAnswerAfterEndDropped: a reply that arrives after its
// lookup ended is dropped, and the next lookup on the same socket gets
// its own answer.
func TestClientLateAnswerAfterEndDropped(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{})
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if strings.EqualFold(q.Question[0].Name, "slow.example.test.") {
			<-ended // late for certain: a sleep may end before a loaded Client's timer fires
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: 50 * time.Millisecond, Attempts: 1}
	a := c.Lookup(t.Context(), "slow.example.test", resolver.TypeA)
	close(ended)
	require.Equal(t, resolver.ReasonTimeout, a.Reason, show(a))
	waitFor(t, func() bool { return resolver.Drops(c) >= 1 })
	c.Timeout = spoofTimeout // a bound on a hang, not on speed
	a = c.Lookup(t.Context(), "fast.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Equal(t, "fast.example.test", a.Records[0].Name)
}

// TestClientSharedSockets: concurrent questions leave from many ports,
// each carrying a small batch of them, and every answer reaches its own
// question even when the replies come back in another order.
func TestClientSharedSockets(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		var i int
		_, _ = fmt.Sscanf(strings.ToLower(q.Question[0].Name), "q%d.", &i)
		time.Sleep(time.Duration(40-i%40) * time.Millisecond) // later questions answered first
		s.send(t, answerA(q, fmt.Sprintf("192.0.2.%d", i)), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1} // a bound on a hang, not on speed
	const n = 80
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := c.Lookup(t.Context(), fmt.Sprintf("q%d.example.test", i), resolver.TypeA)
			if assert.Equal(t, resolver.Found, a.Outcome, show(a)) {
				assert.Equal(t, []string{fmt.Sprintf("192.0.2.%d", i)}, addrsOf(a))
			}
		}()
	}
	wg.Wait()
	ports, most := srv.sources()
	assert.GreaterOrEqual(t, ports, n/8, "at most a batch of 8 questions per port")
	assert.LessOrEqual(t, most, 8, "at most a batch of 8 questions per port")
}

// TestClientTCPFallbackShared: truncated replies to concurrent questions
// are each asked again over TCP, and answered.
func TestClientTCPFallbackShared(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("txt.resolver.test", dnstest.AnyType, dnstest.Truncate)
	c := client(srv)
	var wg sync.WaitGroup
	for _, q := range []string{"big", "txt", "a"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := c.Lookup(t.Context(), q+".resolver.test", resolver.TypeTXT)
			assert.True(t, a.Conclusive(), "%s: %s", q, show(a))
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, srv.CountOver("big.resolver.test", resolver.TypeTXT, "tcp"))
	assert.Equal(t, 1, srv.CountOver("txt.resolver.test", resolver.TypeTXT, "tcp"))
	assert.Equal(t, 0, srv.CountOver("a.resolver.test", resolver.TypeTXT, "tcp"))
}

// reservedTCP holds, by address, the TCP listener that listenUDPAndTCP
// opened beside a raw server's UDP socket, for serveTCP or refuseTCP to
// take: another process cannot take the port in between.
var reservedTCP sync.Map

// listenUDPAndTCP opens a UDP socket on 127.0.0.1 whose port is free for
// TCP too, and reserves that TCP port (reservedTCP) until the test ends.
func listenUDPAndTCP(t *testing.T) net.PacketConn {
	t.Helper()
	pc, l := testlab.ListenPair(t, true)
	addr := pc.LocalAddr().String()
	reservedTCP.Store(addr, l)
	t.Cleanup(func() { reservedTCP.Delete(addr) })
	return pc
}

// listenTCP returns the TCP listener reserved for addr, or a new one.
func listenTCP(t *testing.T, addr string) net.Listener {
	t.Helper()
	if v, ok := reservedTCP.LoadAndDelete(addr); ok {
		return v.(net.Listener)
	}
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	return l
}
