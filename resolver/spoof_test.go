package resolver_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// The attacks of an off-path forger who knows the resolver's address and
// port and, here, the Client's live port (the worst case: loopback tests
// send from the server's own socket): each must leave the lookup answered
// by the real reply, and no forged answer may reach the shared cache.

// spoofTimeout is the attempt timeout of these tests: every verdict
// comes from an event (a datagram counted, a query seen), never from a
// timer, so it only has to outlast a loaded machine.
const spoofTimeout = 30 * time.Second

// eventually polls cond until it holds or spoofTimeout passes (for the
// servers' goroutines, which may not call require).
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(spoofTimeout); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// dropsOf returns how many datagrams of kind c dropped.
func dropsOf(c *resolver.Client, kind string) uint64 { return c.SpoofDrops()[kind] }

// portUnreachable sends an ICMP "port unreachable" (type 3, code 3) from
// 127.0.0.1 that quotes a UDP datagram from client to server: what a
// host sends when nothing listens on server, and what anyone who knows
// the two ports can forge.
func (f *icmpForger) portUnreachable(client, server netip.AddrPort) error {
	inner := make([]byte, 28)
	inner[0] = 0x45 // IPv4, 5-word header
	binary.BigEndian.PutUint16(inner[2:], 28+12)
	inner[8], inner[9] = 64, syscall.IPPROTO_UDP
	src, dst := client.Addr().As4(), server.Addr().As4()
	copy(inner[12:16], src[:])
	copy(inner[16:20], dst[:])
	binary.BigEndian.PutUint16(inner[10:], checksum(inner[:20]))
	binary.BigEndian.PutUint16(inner[20:], client.Port())
	binary.BigEndian.PutUint16(inner[22:], server.Port())
	binary.BigEndian.PutUint16(inner[24:], 8+12)
	msg := append([]byte{3, 3, 0, 0, 0, 0, 0, 0}, inner...)
	binary.BigEndian.PutUint16(msg[2:], checksum(msg))
	return f.sendTo(msg, src)
}

// checksum is the Internet checksum (RFC 1071).
func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// TestSpoofICMPAtLivePort: forged ICMP "port unreachable" errors at the
// live port of a query in flight, three before the answer, neither fail
// nor shorten the lookup: the attempt stays open (the server sees the
// question once) and its answer is taken.
func TestSpoofICMPAtLivePort(t *testing.T) {
	t.Parallel()
	forger := newICMPForger(t)
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		client := from.(*net.UDPAddr).AddrPort()
		server := s.pc.LocalAddr().(*net.UDPAddr).AddrPort()
		for i := uint64(1); i <= 3; i++ {
			if err := forger.portUnreachable(client, server); err != nil {
				t.Errorf("forge ICMP: %v", err)
				return
			}
			if !eventually(func() bool { return dropsOf(c, "icmp") >= i }) {
				t.Errorf("ICMP error %d not seen by the client", i)
				return
			}
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c.Servers = []string{srv.addr()}
	a := c.Lookup(t.Context(), "icmp.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	assert.Equal(t, 1, srv.queries(), "the question was asked once: the ICMP errors did not end its attempt")
	assert.Equal(t, uint64(3), dropsOf(c, "icmp"))
}

// TestSpoofDatagramsBeforeAnswer: datagrams that carry the query's ID
// but do not decode, ask another question, carry the name in another case
// or a forged REFUSED arrive before the real answer; each leaves the
// lookup answered by the real reply.
func TestSpoofDatagramsBeforeAnswer(t *testing.T) {
	t.Parallel()
	refused := func(q *dns.Msg) *dns.Msg {
		m := new(dns.Msg)
		m.SetRcode(q, dns.RcodeRefused)
		return m
	}
	tests := []struct {
		name  string
		forge func(q *dns.Msg) []byte
		kind  string // the drop counted; "" for the REFUSED, which is a reply
	}{
		{"undecodable", func(q *dns.Msg) []byte {
			b := []byte{0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 0x3f, 'x'}
			binary.BigEndian.PutUint16(b, q.Id)
			return b
		}, "undecodable"},
		{"wrong-question", func(q *dns.Msg) []byte {
			m := answerA(q, "192.0.2.66")
			m.Question[0].Name = "other.example.test."
			return pack(m)
		}, "wrong_question"},
		{"wrong-case", func(q *dns.Msg) []byte {
			m := answerA(q, "192.0.2.66")
			m.Question[0].Name = strings.ToLower(m.Question[0].Name)
			if m.Question[0].Name == q.Question[0].Name {
				m.Question[0].Name = strings.ToUpper(m.Question[0].Name)
			}
			return pack(m)
		}, "wrong_case"},
		{"refused", func(q *dns.Msg) []byte { return pack(refused(q)) }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			asked := 0
			c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
			srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
				mu.Lock()
				asked++
				first := asked == 1
				mu.Unlock()
				if first {
					_, _ = s.pc.WriteTo(tc.forge(q), from)
					// The real answer follows once the forgery was dropped
					// (or, for the REFUSED, asked again).
					ok := eventually(func() bool {
						if tc.kind == "" {
							mu.Lock()
							defer mu.Unlock()
							return asked >= 2
						}
						return dropsOf(c, tc.kind) >= 1
					})
					if !ok {
						t.Errorf("the client did not react to the forgery")
						return
					}
				}
				s.send(t, answerA(q, "192.0.2.1"), from)
			})
			c.Servers = []string{srv.addr()}
			a := c.Lookup(t.Context(), "forged.example.test", resolver.TypeA)
			require.Equal(t, resolver.Found, a.Outcome, show(a))
			assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
			if tc.kind != "" {
				assert.Equal(t, uint64(1), dropsOf(c, tc.kind))
			}
		})
	}
}

func pack(m *dns.Msg) []byte {
	b, err := m.Pack()
	if err != nil {
		panic(fmt.Sprintf("pack: %v", err)) // the tests' own messages always pack
	}
	return b
}

// TestSpoofNeverCached: a forger guessing the ID (datagrams with wrong
// IDs) wins, and the Client takes its forged answer; the transaction saw
// the unmatched datagrams, so the shared cache does not keep it, and the
// next lookup asks the wire and gets the real answer. The same for a
// forgery after a mismatched datagram carrying the right ID.
func TestSpoofNeverCached(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		warmups func(q *dns.Msg) []*dns.Msg
	}{
		{"guessed-id", func(q *dns.Msg) []*dns.Msg {
			var out []*dns.Msg
			for i := uint16(1); i <= 3; i++ {
				m := answerA(q, "192.0.2.66")
				m.Id = q.Id + i
				out = append(out, m)
			}
			return out
		}},
		{"mismatched-first", func(q *dns.Msg) []*dns.Msg {
			m := answerA(q, "192.0.2.66")
			m.Question[0].Qtype = dns.TypeAAAA
			return []*dns.Msg{m}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			asked := 0
			srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
				mu.Lock()
				asked++
				first := asked == 1
				mu.Unlock()
				if first {
					for _, m := range tc.warmups(q) {
						s.send(t, m, from)
					}
					s.send(t, answerA(q, "192.0.2.66"), from) // the forger wins the race
					return
				}
				s.send(t, answerA(q, "192.0.2.1"), from)
			})
			c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1}
			cache := resolver.NewCache(c, 0)
			a := cache.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
			require.Equal(t, resolver.Found, a.Outcome, show(a))
			assert.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forgery won this lookup")
			assert.Zero(t, cache.Stats().Entries, "the tainted answer is not cached")
			a = cache.Lookup(t.Context(), "victim.example.test", resolver.TypeA)
			require.Equal(t, resolver.Found, a.Outcome, show(a))
			assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a), "the next lookup asks the wire")
			assert.Equal(t, 1, cache.Stats().Entries, "a clean answer is cached")
		})
	}
}

// TestNoCaseEchoFallback: a resolver that answers with the question's
// name in lower case, whatever case it was asked in, over UDP and TCP,
// still answers every lookup: after three such replies the Client asks it
// over TCP, which shows the same, and from then on matches its replies in
// any case (still exactly otherwise), and logs it once, without a name.
func TestNoCaseEchoFallback(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var names []string
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		names = append(names, q.Question[0].Name)
		mu.Unlock()
		m := answerA(q, "192.0.2.1")
		m.Question[0].Name = strings.ToLower(m.Question[0].Name)
		s.send(t, m, from)
	})
	tcp := serveTCP(t, srv.addr(), func(q *dns.Msg) *dns.Msg {
		m := answerA(q, "192.0.2.1")
		m.Question[0].Name = strings.ToLower(m.Question[0].Name)
		return m
	})
	var log bytes.Buffer
	var logMu sync.Mutex
	wrote := make(chan struct{}, 1)
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &logMu, wrote: wrote}, nil))}
	for i := range 4 {
		a := c.Lookup(t.Context(), fmt.Sprintf("host%d.example.test", i), resolver.TypeA)
		require.Equal(t, resolver.Found, a.Outcome, "lookup %d: %s", i, show(a))
	}
	assert.GreaterOrEqual(t, dropsOf(c, "wrong_case"), uint64(3))
	assert.Equal(t, int32(1), tcp.Load(), "confirmed over TCP once")
	// The probe switches the case off, then logs, on its own goroutine:
	// a quick resend's reply read in between answers the first lookup,
	// and the others may end before the line is written.
	select {
	case <-wrote:
	case <-time.After(spoofTimeout): // a bound on a hang, not on speed
		t.Fatal("no log line from the probe")
	}
	logMu.Lock()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	logMu.Unlock()
	require.Len(t, lines, 1, "one log line")
	assert.Contains(t, lines[0], "0x20")
	assert.NotContains(t, lines[0], "example.test", "no name in the log")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, "host3.example.test.", names[len(names)-1], "after the fallback, questions go out in lower case")
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
	// wrote, when set, gets a value (without blocking) after each write.
	wrote chan struct{}
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.wrote != nil {
		select {
		case l.wrote <- struct{}{}:
		default:
		}
	}
	return n, err
}

// TestCookies: a server that sends DNS cookies (RFC 7873) gets the
// Client's cookie back with its own from then on; a reply with another
// client cookie is dropped, and the real reply is taken.
func TestCookies(t *testing.T) {
	t.Parallel()
	const serverCookie = "a1a2a3a4a5a6a7a8"
	var mu sync.Mutex
	var cookies []string
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		var cookie string
		if opt := q.IsEdns0(); opt != nil {
			for _, o := range opt.Option {
				if co, ok := o.(*dns.EDNS0_COOKIE); ok {
					cookie = co.Cookie
				}
			}
		}
		mu.Lock()
		cookies = append(cookies, cookie)
		n := len(cookies)
		mu.Unlock()
		m := answerA(q, "192.0.2.1")
		m.SetEdns0(1232, false)
		if n > 1 {
			// A forger who knows the port and ID but not the cookie.
			wrong := answerA(q, "192.0.2.66")
			wrong.SetEdns0(1232, false)
			wrong.IsEdns0().Option = []dns.EDNS0{&dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: "0000000000000000" + serverCookie}}
			s.send(t, wrong, from)
			if !eventually(func() bool { return dropsOf(c, "wrong_cookie") >= uint64(n-1) }) {
				t.Errorf("the forgeries were not dropped")
				return
			}
		}
		if len(cookie) >= 16 {
			m.IsEdns0().Option = []dns.EDNS0{&dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: cookie[:16] + serverCookie}}
		}
		s.send(t, m, from)
	})
	c.Servers = []string{srv.addr()}
	for i := range 3 {
		a := c.Lookup(t.Context(), fmt.Sprintf("host%d.example.test", i), resolver.TypeA)
		require.Equal(t, resolver.Found, a.Outcome, "lookup %d: %s", i, show(a))
		assert.Equal(t, []string{"192.0.2.1"}, addrsOf(a))
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, cookies, 3)
	require.Len(t, cookies[0], 16, "the first query carries a client cookie only")
	for i, got := range cookies[1:] {
		assert.Equal(t, cookies[0]+serverCookie, got, "query %d: the client cookie and the server's", i+1)
	}
	assert.Equal(t, uint64(2), dropsOf(c, "wrong_cookie"))
}

// cookieOf returns the COOKIE option of m in hex, or "".
func cookieOf(m *dns.Msg) string {
	if opt := m.IsEdns0(); opt != nil {
		for _, o := range opt.Option {
			if co, ok := o.(*dns.EDNS0_COOKIE); ok {
				return co.Cookie
			}
		}
	}
	return ""
}

// withCookie returns m with an OPT record carrying cookie (hex).
func withCookie(m *dns.Msg, cookie string) *dns.Msg {
	m.SetEdns0(1232, false)
	m.IsEdns0().Option = []dns.EDNS0{&dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: cookie}}
	return m
}

// TestCookieBadCookie: a server that answers BADCOOKIE (RFC 7873 §5.3)
// with its server cookie gets the question again at once, with that
// cookie, and its answer is taken.
func TestCookieBadCookie(t *testing.T) {
	t.Parallel()
	const serverCookie = "b1b2b3b4b5b6b7b8"
	var mu sync.Mutex
	var got []string
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		cookie := cookieOf(q)
		mu.Lock()
		got = append(got, cookie)
		mu.Unlock()
		if len(cookie) < 16 {
			return
		}
		if !strings.HasSuffix(cookie, serverCookie) {
			m := new(dns.Msg)
			m.SetReply(q)
			m.Rcode = dns.RcodeBadCookie
			s.send(t, withCookie(m, cookie[:16]+serverCookie), from)
			return
		}
		s.send(t, withCookie(answerA(q, "192.0.2.1"), cookie[:16]+serverCookie), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1}
	a := c.Lookup(t.Context(), "bad-cookie.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2, "the question, then again with the server cookie")
	assert.Len(t, got[0], 16, "a client cookie only")
	assert.Equal(t, got[0]+serverCookie, got[1])
}

// TestCookieServerStops: a server that sent cookies and stops (it was
// replaced or reconfigured) still answers every lookup: after three
// replies without a cookie in a row, the Client asks it over TCP, which
// has no cookie either, and from then on takes its replies without one,
// and logs it once.
func TestCookieServerStops(t *testing.T) {
	t.Parallel()
	const serverCookie = "c1c2c3c4c5c6c7c8"
	var mu sync.Mutex
	asked := 0
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		asked++
		first := asked == 1
		mu.Unlock()
		m := answerA(q, "192.0.2.1")
		if cookie := cookieOf(q); first && len(cookie) >= 16 {
			m = withCookie(m, cookie[:16]+serverCookie)
		}
		s.send(t, m, from)
	})
	serveTCP(t, srv.addr(), func(q *dns.Msg) *dns.Msg { return answerA(q, "192.0.2.1") })
	var log bytes.Buffer
	var logMu sync.Mutex
	wrote := make(chan struct{}, 1)
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: spoofTimeout, Attempts: 1,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &logMu, wrote: wrote}, nil))}
	for i := range 3 {
		a := c.Lookup(t.Context(), fmt.Sprintf("host%d.example.test", i), resolver.TypeA)
		require.Equal(t, resolver.Found, a.Outcome, "lookup %d: %s", i, show(a))
	}
	assert.GreaterOrEqual(t, dropsOf(c, "wrong_cookie"), uint64(3), "three replies without the cookie")
	// The third lookup may be answered by its own question over TCP
	// before the probe's reply: the probe logs on its own goroutine.
	select {
	case <-wrote:
	case <-time.After(spoofTimeout): // a bound on a hang, not on speed
		t.Fatal("no log line from the probe")
	}
	logMu.Lock()
	defer logMu.Unlock()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 1, "one log line")
	assert.Contains(t, lines[0], "cookies")
	assert.NotContains(t, lines[0], "example.test", "no name in the log")
}
