package resolver_test

import (
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// Regression tests for the attacks of an off-path forger on the hardened
// client: each forgery below matches what the test says it matches (the
// loopback server sends it from the resolver's own address and port) and
// must neither end the lookup wrongly nor reach the shared cache.

// serveTCP answers DNS over TCP on addr (the raw UDP server's address)
// with h, and counts the questions.
func serveTCP(t *testing.T, addr string, h func(q *dns.Msg) *dns.Msg) *atomic.Int32 {
	t.Helper()
	l := listenTCP(t, addr)
	var n atomic.Int32
	srv := &dns.Server{Listener: l, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		n.Add(1)
		_ = w.WriteMsg(h(r))
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ActivateAndServe()
	}()
	<-started
	t.Cleanup(func() {
		_ = srv.Shutdown()
		<-done
	})
	return &n
}

// refuseTCP accepts TCP connections on addr and closes them at once (a
// resolver whose TCP side is broken), counting them.
func refuseTCP(t *testing.T, addr string, n *atomic.Int32) {
	t.Helper()
	l := listenTCP(t, addr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
}

// TestForgedDowngradeNeedsTCP: a forger who matches only port and ID
// (the name in a guessed case, no cookie) sends the datagrams that made
// the client switch 0x20 and cookie checking off; the resolver itself
// echoes the case and sends cookies, over UDP and TCP. The client asks
// over TCP before it switches a protection off, so both stay on, and the
// forged answer to the victim's question is neither taken nor cached.
func TestForgedDowngradeNeedsTCP(t *testing.T) {
	t.Parallel()
	const serverCookie = "d1d2d3d4d5d6d7d8"
	var mu sync.Mutex
	var victimNames []string
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	realReply := func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.1")
		if cookie := cookieOf(q); len(cookie) >= 16 {
			m = withCookie(m, cookie[:16]+serverCookie)
		}
		return m
	}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		name := q.Question[0].Name
		lname := strings.ToLower(name)
		switch {
		case strings.HasPrefix(lname, "warm"):
			s.send(t, realReply(q), from)
		case strings.HasPrefix(lname, "evil"):
			// The forger's own question, which the resolver never answers
			// over UDP: port and ID only, the name in another case, no
			// cookie.
			m := answerA(q, "192.0.2.66")
			m.Question[0].Name = lname
			if lname == name {
				m.Question[0].Name = strings.ToUpper(name)
			}
			s.send(t, m, from)
		case strings.HasPrefix(lname, "victim"):
			mu.Lock()
			victimNames = append(victimNames, name)
			first := len(victimNames) == 1
			mu.Unlock()
			if !first {
				// A question asked again after the forgery was dropped:
				// its lookup may end with the real reply to the first
				// before a forgery here could be matched.
				s.send(t, realReply(q), from)
				return
			}
			f := answerA(q, "192.0.2.66")
			f.Question[0].Name = lname
			f.Answer[0].Header().Name = lname
			f.Answer[0].Header().Ttl = 3600
			drops := dropsOf(c, "wrong_cookie") + dropsOf(c, "wrong_case")
			s.send(t, f, from)
			if !eventually(func() bool { return dropsOf(c, "wrong_cookie")+dropsOf(c, "wrong_case") > drops }) {
				t.Errorf("the forgery was not dropped")
			}
			s.send(t, realReply(q), from)
		}
	})
	serveTCP(t, srv.addr(), realReply)
	c.Servers = []string{srv.addr()}
	lookup := func(name string) resolver.Answer {
		return c.Lookup(t.Context(), name, resolver.TypeA)
	}
	a := lookup("warm.example.test")
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	for _, evil := range []string{"evil1.attacker.test", "evil2.attacker.test", "evil3.attacker.test"} {
		a = lookup(evil)
		assert.Equal(t, resolver.Found, a.Outcome, "answered over TCP: %s", show(a))
		assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a), "the resolver's TCP answer")
	}
	cache := resolver.NewCache(c, 0)
	a = cache.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a), "the forged answer was taken")
	a = cache.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a), "the forged answer was cached")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, victimNames)
	assert.NotEqual(t, strings.ToLower(victimNames[0]), victimNames[0], "0x20 still on")
}

// TestOneShotForgeryEvicted: a forger sends one datagram to the query's
// port and wins (ID and case guessed), so that no drop taints the lookup,
// and the forged answer is cached. The resolver's real reply to the same
// query, which comes after it with another answer, evicts it: the next
// lookup asks the wire and gets the real answer.
func TestOneShotForgeryEvicted(t *testing.T) {
	t.Parallel()
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	oneShotForgery(t, c, func() bool { return true })
}

// TestOneShotForgeryEvictedByWatcher is TestOneShotForgeryEvicted with
// the real reply coming once the forged answer's socket, retired after
// its one query, holds tombstones only and is read by the pool's watcher
// rather than by a reader of its own (Linux): the contradiction still
// evicts the forgery as it comes.
func TestOneShotForgeryEvictedByWatcher(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the watcher reads tombstones on Linux only")
	}
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	resolver.SetSocketBatch(c, 1)
	oneShotForgery(t, c, func() bool { return resolver.WatchedSockets(c) == 1 })
}

// oneShotForgery runs the one-shot forgery against c: the real reply is
// sent once the forgery is cached and ready reports true.
func oneShotForgery(t *testing.T, c *resolver.Client, ready func() bool) {
	t.Helper()
	resolver.SetTombstone(c, spoofTimeout)
	cache := resolver.NewCache(c, 0)
	var asked atomic.Int32
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if asked.Add(1) > 1 {
			s.send(t, answerA(q, "192.0.2.1"), from)
			return
		}
		f := answerA(q, "192.0.2.66")
		f.Answer[0].Header().Ttl = 3600
		s.send(t, f, from)
		if !eventually(func() bool { return cache.Stats().Entries == 1 && ready() }) {
			t.Errorf("the forgery was not cached, or its socket not ready")
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from) // the real reply, late
	})
	c.Servers = []string{srv.addr()}
	a := cache.Lookup(t.Context(), "_dmarc.victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forger won the race")
	require.True(t, eventually(func() bool { return cache.Stats().Entries == 0 }), "the contradicted forgery stays cached")
	assert.Equal(t, uint64(1), cache.Stats().Invalidated)
	a = cache.Lookup(t.Context(), "_dmarc.victim.example", resolver.TypeA)
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	assert.Equal(t, int32(2), asked.Load(), "asked the wire again")
}

// TestDoubledRefusedIsNoConfirmation: a forger who sends a matching
// REFUSED twice to the same query. The first has the question asked again
// on a fresh socket; the second, which answers the first query again, is
// not the re-ask's reply and does not count: the real answer to the first
// query is taken.
func TestDoubledRefusedIsNoConfirmation(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if asked.Add(1) > 1 {
			return // the re-ask: the resolver is still resolving
		}
		m := new(dns.Msg)
		m.SetRcode(q, dns.RcodeRefused)
		s.send(t, m, from)
		s.send(t, m, from)
		if !eventually(func() bool { return asked.Load() >= 2 }) {
			t.Errorf("not asked again after the first REFUSED")
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1}
	a := c.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, "a doubled forged REFUSED failed the lookup: %s", show(a))
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
}

// TestForgedTruncatedKeepsWaiting: a forged reply with the TC bit sends
// the question to TCP, which fails here; the lookup keeps waiting for the
// UDP reply meanwhile and after, and takes the real answer.
func TestForgedTruncatedKeepsWaiting(t *testing.T) {
	t.Parallel()
	var tcp, asked atomic.Int32
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if asked.Add(1) > 1 {
			return
		}
		m := new(dns.Msg)
		m.SetReply(q)
		m.Truncated = true
		s.send(t, m, from)
		if !eventually(func() bool { return tcp.Load() >= 1 }) {
			t.Errorf("the truncated reply was not asked again over TCP")
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	refuseTCP(t, srv.addr(), &tcp)
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1}
	a := c.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, "a forged TC reply failed the lookup: %s", show(a))
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
}

// TestTaintedAnswerNotShared: a question two callers ask at once goes out
// once; its lookup sees datagrams with guessed IDs and then takes a
// forged answer. The caller that asked gets it (with TTL 0), but the
// caller that waited for it asks again and gets the real answer.
func TestTaintedAnswerNotShared(t *testing.T) {
	t.Parallel()
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	cache := resolver.NewCache(c, 0)
	var asked atomic.Int32
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		if asked.Add(1) > 1 {
			s.send(t, answerA(q, "192.0.2.1"), from)
			return
		}
		if !eventually(func() bool { return cache.Stats().Shared >= 1 }) {
			t.Errorf("the second caller did not join")
			return
		}
		for i := uint16(1); i <= 3; i++ {
			m := answerA(q, "192.0.2.66")
			m.Id = q.Id + i
			s.send(t, m, from)
		}
		s.send(t, answerA(q, "192.0.2.66"), from)
	})
	c.Servers = []string{srv.addr()}
	var wg sync.WaitGroup
	answers := make([]resolver.Answer, 2)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = cache.Lookup(t.Context(), "shared.example.test", resolver.TypeA)
		}()
	}
	wg.Wait()
	got := [][]string{addrsOf(answers[0]), addrsOf(answers[1])}
	assert.ElementsMatch(t, [][]string{{"192.0.2.66"}, {"192.0.2.1"}}, got, "the waiter asked again")
	assert.Equal(t, int32(2), asked.Load())
}

// TestEscapedNameAnswered: a name with escaped characters in presentation
// form (\065 is A; \b is b) is asked and its reply matched in wire form.
func TestEscapedNameAnswered(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1}
	for _, name := range []string{`\065bc.example.test`, `a\bc.example.test`} {
		a := c.Lookup(t.Context(), name, resolver.TypeA)
		require.Equal(t, resolver.Found, a.Outcome, "%s: %s", name, show(a))
		assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a), name)
		require.Len(t, a.Records, 1)
		assert.Equal(t, "abc.example.test", a.Records[0].Name)
	}
	assert.Zero(t, dropsOf(c, "wrong_question"))
}

// TestICMPAtLivePortTaints: a forged ICMP error at the live port of a
// query shows that someone knows the port: the answer that follows serves
// the lookup but is not cached.
func TestICMPAtLivePortTaints(t *testing.T) {
	t.Parallel()
	forger := newICMPForger(t)
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		client := from.(*net.UDPAddr).AddrPort()
		server := s.pc.LocalAddr().(*net.UDPAddr).AddrPort()
		if err := forger.portUnreachable(client, server); err != nil {
			t.Errorf("forge ICMP: %v", err)
			return
		}
		if !eventually(func() bool { return dropsOf(c, "icmp") >= 1 }) {
			t.Errorf("ICMP error not seen by the client")
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c.Servers = []string{srv.addr()}
	cache := resolver.NewCache(c, 0)
	a := cache.Lookup(context.Background(), "icmp.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Zero(t, cache.Stats().Entries, "an answer after an ICMP error at its port is cached")
}
