package resolver

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func queryEntry(t *testing.T, u *upstream, name string) entry {
	t.Helper()
	e, _ := queryWire(t, u, name)
	return e
}

// queryWire is queryEntry, and returns the packed query too.
func queryWire(t *testing.T, u *upstream, name string) (entry, []byte) {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(name, dns.TypeA)
	q.SetEdns0(DefaultUDPSize, false)
	var e entry
	wire, err := u.entry(q, 0, newWaiter(), &e)
	require.NoError(t, err)
	return e, wire
}

// TestICMPKeepsQueriesOpen: an ICMP "port unreachable" reaches a socket
// while a query is in flight on it (the server restarted; an off-path
// forger who knows the port can send the same). The query is not failed:
// the error is counted and marked on the query, the socket takes no new
// query, and the reply that comes after it is still delivered; whether
// the socket is read by the watcher or by a reader of its own.
func TestICMPKeepsQueriesOpen(t *testing.T) {
	t.Parallel()
	for _, readers := range []bool{false, true} {
		t.Run(fmt.Sprintf("readers=%v", readers), func(t *testing.T) {
			t.Parallel()
			icmpKeepsQueriesOpen(t, readers)
		})
	}
}

func icmpKeepsQueriesOpen(t *testing.T, readers bool) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	server := pc.LocalAddr().String()
	require.NoError(t, pc.Close()) // nobody listens: loopback answers port unreachable
	p := &pool{readers: readers}
	u := p.upstream(server, nil, DefaultUDPSize)
	s, err := u.dial(socketBatch)
	require.NoError(t, err)
	t.Cleanup(func() { s.retire() })

	e, wire := queryWire(t, u, "q.example.test.")
	id, ok := s.register(&e)
	require.True(t, ok)
	require.NoError(t, s.write(id, wire))
	require.Eventually(t, func() bool { return p.drops[dropICMP].Load() == 1 }, 30*time.Second, 5*time.Millisecond, "the reader sees the ICMP error")
	assert.True(t, e.icmp.Load(), "the query in flight is marked")
	r := queryEntry(t, u, "r.example.test.")
	_, ok = s.register(&r)
	assert.False(t, ok, "the socket takes no new query")

	// The server is back, and answers the query in flight.
	back, err := net.ListenPacket("udp", server)
	require.NoError(t, err)
	defer back.Close()
	rep := answerOn(t, back, s, e, id)
	assert.Equal(t, e.question(), rep.msg.Question[0])
	s.release(id)
	s.mu.Lock()
	assert.True(t, s.closed, "the retired socket closes after its last query")
	s.mu.Unlock()
}

// socketTo listens on a loopback UDP port and opens a socket of a new
// pool to it, for 8 queries, read by a reader of its own when readers is
// set, else by the watcher where there is one; the socket is retired
// when the test ends.
func socketTo(t *testing.T, readers bool) (net.PacketConn, *pool, *upstream, *socket) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	p := &pool{readers: readers}
	u := p.upstream(pc.LocalAddr().String(), nil, DefaultUDPSize)
	s, err := u.dial(8)
	require.NoError(t, err)
	t.Cleanup(func() { s.retire() })
	return pc, p, u, s
}

// answerOn sends, from pc, a reply to e's query, registered on s under
// id, and returns the reply e's lookup received: the reply, not a
// failure.
func answerOn(t *testing.T, pc net.PacketConn, s *socket, e entry, id uint16) *reply {
	t.Helper()
	b := replyTo(t, e, id, e.name)
	delivered := make(chan struct{}, 1)
	e.w.mu.Lock()
	e.w.kick = func() {
		select {
		case delivered <- struct{}{}:
		default:
		}
	}
	e.w.mu.Unlock()
	_, err := pc.WriteTo(b, s.conn.LocalAddr())
	require.NoError(t, err)
	select {
	case <-delivered:
		r := e.w.take()
		require.NotNil(t, r, "a reply queued")
		require.NotNil(t, r.msg, "the reply, not a failure")
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no reply delivered")
		return nil
	}
}

func TestICMPError(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		assert.True(t, icmpError(&net.OpError{Op: "read", Err: errno}), "%v", errno)
	}
	assert.False(t, icmpError(&net.OpError{Op: "write", Err: syscall.EINVAL}))
}

// TestClientCookieRotates: a client cookie is used for new queries for
// cookieRotate; then a new one is drawn and the server cookie, which the
// server computed from the old one, is forgotten. A query in flight keeps
// the cookie it was sent with, and a reply to it does not teach the server
// cookie of the old client cookie.
func TestClientCookieRotates(t *testing.T) {
	t.Parallel()
	p := &pool{}
	u := p.upstream("127.0.0.1:53", nil, DefaultUDPSize)
	const sc = "1112131415161718"
	first := queryEntry(t, u, "a.example.test.")
	require.Len(t, first.cookie.hex, 2*clientCookieLen)
	assert.Equal(t, first.cookie.hex, queryEntry(t, u, "a.example.test.").cookie.hex, "the same cookie within its hour")
	u.serverCookie.Store(new(string))
	*u.serverCookie.Load() = sc
	u.cookie.Store(&clientCookie{hex: first.cookie.hex, born: time.Now().Add(-cookieRotate)})
	second := queryEntry(t, u, "a.example.test.")
	assert.NotEqual(t, first.cookie.hex, second.cookie.hex, "rotated")
	assert.Nil(t, u.serverCookie.Load(), "the old server cookie is forgotten")

	reply := func(cookie string) *dns.Msg {
		m := new(dns.Msg)
		m.SetQuestion("a.example.test.", dns.TypeA)
		m.Response = true
		m.SetEdns0(1232, false)
		m.IsEdns0().Option = []dns.EDNS0{&dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: cookie}}
		return m
	}
	u.learn(reply(first.cookie.hex+sc), true)
	assert.Nil(t, u.serverCookie.Load(), "a reply to a query with the old cookie teaches nothing")
	u.learn(reply(second.cookie.hex+sc), true)
	require.NotNil(t, u.serverCookie.Load())
	assert.Equal(t, sc, *u.serverCookie.Load())
}

// TestConclusiveKey: two replies agree when their RCODE and answer
// records do, whatever their TTLs, order and owner names' case; error
// and truncated replies conclude nothing.
func TestConclusiveKey(t *testing.T) {
	t.Parallel()
	msg := func(rcode int, ips ...string) *dns.Msg {
		m := new(dns.Msg)
		m.SetQuestion("a.example.test.", dns.TypeA)
		m.Response, m.Rcode = true, rcode
		for i, ip := range ips {
			name := "a.example.test."
			if i%2 == 1 {
				name = "A.Example.TEST."
			}
			m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: uint32(60 * (i + 1))}, A: net.ParseIP(ip).To4()})
		}
		return m
	}
	a := conclusiveKey(msg(dns.RcodeSuccess, "192.0.2.1", "192.0.2.2"))
	assert.NotEmpty(t, a)
	assert.Equal(t, a, conclusiveKey(msg(dns.RcodeSuccess, "192.0.2.2", "192.0.2.1")), "order, case and TTL do not matter")
	assert.NotEqual(t, a, conclusiveKey(msg(dns.RcodeSuccess, "192.0.2.1", "192.0.2.66")))
	assert.NotEqual(t, a, conclusiveKey(msg(dns.RcodeNameError)))
	assert.Empty(t, conclusiveKey(msg(dns.RcodeServerFailure)))
	assert.Empty(t, conclusiveKey(nil))
	tc := msg(dns.RcodeSuccess, "192.0.2.1")
	tc.Truncated = true
	assert.Empty(t, conclusiveKey(tc))
}

// answerMsg returns a NOERROR reply to the question of name and qtype
// with the records recs (in presentation form) as its answer.
func answerMsg(t *testing.T, name string, qtype uint16, recs ...string) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.Response = true
	for _, r := range recs {
		rr, err := dns.NewRR(r)
		require.NoError(t, err, r)
		m.Answer = append(m.Answer, rr)
	}
	return m
}

// serveDNS serves srv (a loopback listener of the test's) until the
// test ends.
func serveDNS(t *testing.T, srv *dns.Server) {
	t.Helper()
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started // a Shutdown before the start would leave it serving
	t.Cleanup(func() { _ = srv.Shutdown() })
}

// replyA returns the reply to the question r with one A record, ip, for
// its name as the question spells it.
func replyA(r *dns.Msg, ip string) *dns.Msg {
	m := new(dns.Msg)
	m.SetReply(r)
	if rr, err := dns.NewRR(m.Question[0].Name + " 60 IN A " + ip); err == nil {
		m.Answer = []dns.RR{rr}
	}
	return m
}

// conflictFunc is a conflicter run by a function.
type conflictFunc func()

func (f conflictFunc) conflict() { f() }

// countingWaiter returns a waiter below a Cache (its conflict set) and
// the count of the conflicts it reported.
func countingWaiter() (*waiter, *atomic.Int32) {
	w := newWaiter()
	conflicts := new(atomic.Int32)
	w.conflict = conflictFunc(func() { conflicts.Add(1) })
	w.salt = new(pool).digestSalt()
	return w, conflicts
}

// TestDigestSalted: the digest a tombstone keeps begins with a secret
// salt that each Client draws once (so that nobody can search offline
// for two answers whose 128-bit digests agree), and a lookup below a
// Cache digests under its Client's salt.
func TestDigestSalted(t *testing.T) {
	t.Parallel()
	var p1, p2 pool
	s1, s2 := p1.digestSalt(), p2.digestSalt()
	require.NotNil(t, s1)
	assert.Same(t, s1, p1.digestSalt(), "a pool's salt changed")
	assert.NotEqual(t, *s1, *s2, "two pools drew the same salt")
	assert.NotEqual(t, digestSalt{}, *s1)
	const k = "\x00records"
	assert.NotEqual(t, keyOf(s1, k), keyOf(s2, k), "the salt is not in the digest")
	assert.Equal(t, keyOf(s1, k), keyOf(s1, k))
	long := strings.Repeat("x", 2000) // past the stack buffer
	assert.NotEqual(t, keyOf(s1, long), keyOf(s1, long+"y"))

	w, _ := countingWaiter()
	m := answerMsg(t, "a.example.test.", dns.TypeA, "a.example.test. 60 IN A 192.0.2.1")
	w.decide(m, 0)
	assert.Equal(t, keyOf(w.salt, conclusiveKey(m)), w.takenKey)
	assert.NotEqual(t, keyOf(nil, conclusiveKey(m)), w.takenKey, "digested without the salt")

	c := &Client{Servers: []string{"127.0.0.1:53"}}
	ctx := context.WithValue(t.Context(), hookKey{}, &cacheHook{})
	l := c.newLookup(ctx, c.Servers, "a.example.test", TypeA, false, c.schedule())
	defer l.timer.Stop()
	assert.Same(t, c.pool.digestSalt(), l.w.salt, "a lookup below a Cache digests under another salt")
	plain := c.newLookup(t.Context(), c.Servers, "a.example.test", TypeA, false, c.schedule())
	defer plain.timer.Stop()
	assert.Nil(t, plain.w.salt, "a lookup below no Cache keeps a salt")
}

// TestConclusiveKeyKeepsData: two replies agree when their records
// differ only in the case of a domain name (an owner's, echoing its
// query's 0x20 case, or one in the data); a record whose other bytes
// differ, even only in case (a TXT string such as a DKIM key, a CAA
// value) or in raw bytes, is another record, and two answers that join
// to the same text are not taken as equal.
func TestConclusiveKeyKeepsData(t *testing.T) {
	t.Parallel()
	key := func(recs ...string) string {
		return conclusiveKey(answerMsg(t, "s1._domainkey.example.test.", dns.TypeTXT, recs...))
	}
	for _, c := range []struct{ a, b []string }{
		{[]string{`s1._domainkey.example.test. 60 IN TXT "v=DKIM1; p=MIIBIjANBgkq"`}, []string{`S1._DomainKey.EXAMPLE.test. 3600 IN TXT "v=DKIM1; p=MIIBIjANBgkq"`}},
		{[]string{`a.example.test. 60 IN CNAME Target.Example.TEST.`, `target.example.test. 60 IN A 192.0.2.1`}, []string{`A.example.test. 30 IN CNAME target.example.test.`, `TARGET.example.test. 30 IN A 192.0.2.1`}},
		{[]string{`example.test. 60 IN MX 10 MX1.Example.test.`}, []string{`example.test. 60 IN MX 10 mx1.example.TEST.`}},
	} {
		assert.Equal(t, key(c.a...), key(c.b...), "%q and %q", c.a, c.b)
	}
	for _, c := range []struct{ a, b []string }{
		{[]string{`s1._domainkey.example.test. 60 IN TXT "v=DKIM1; p=MIIBIjANBgkq"`}, []string{`s1._domainkey.example.test. 60 IN TXT "v=DKIM1; p=MIIBIJANBGKQ"`}},
		{[]string{`s1._domainkey.example.test. 60 IN TXT "v=DKIM1; p=abc"`}, []string{`s1._domainkey.example.test. 60 IN TXT "v=DKIM1; P=abc"`}},
		{[]string{`s1._domainkey.example.test. 60 IN TXT "ab" "c"`}, []string{`s1._domainkey.example.test. 60 IN TXT "a" "bc"`}},
		{[]string{`example.test. 60 IN CAA 0 issue "ca.example.net"`}, []string{`example.test. 60 IN CAA 0 issue "CA.example.net"`}},
		{[]string{`example.test. 60 IN NULL \# 2 abcd`}, []string{`example.test. 60 IN NULL \# 2 abce`}},
		{[]string{`example.test. 60 IN MX 10 mx1.example.test.`}, []string{`example.test. 60 IN MX 20 mx1.example.test.`}},
		{[]string{`a.example.test. 60 IN A 192.0.2.1`, `a.example.test. 60 IN A 192.0.2.2`}, []string{`a.example.test. 60 IN A 192.0.2.1`}},
	} {
		assert.NotEqual(t, key(c.a...), key(c.b...), "%q and %q", c.a, c.b)
	}
}

// TestConclusiveKeyCAAValueBytes: a CAA value is held as the bytes
// received, and the checks read it so: a value that differs from another
// by a backslash escape, a trailing backslash or an escaped dot is
// another record, though the DNS library would pack all of them as the
// same bytes.
func TestConclusiveKeyCAAValueBytes(t *testing.T) {
	t.Parallel()
	caa := func(v string) *dns.Msg {
		m := new(dns.Msg)
		m.SetQuestion("example.test.", dns.TypeCAA)
		m.Response = true
		m.Answer = []dns.RR{&dns.CAA{Hdr: dns.RR_Header{Name: "example.test.", Rrtype: dns.TypeCAA, Class: dns.ClassINET, Ttl: 300}, Tag: "issue", Value: v}}
		return m
	}
	real := conclusiveKey(caa("letsencrypt.org"))
	for _, v := range []string{`letsencrypt.org\`, `l\101tsencrypt.org`, `letsencrypt\.org`, `letsencrypt.org\\`} {
		assert.NotEqual(t, real, conclusiveKey(caa(v)), "CAA value %q", v)
	}
	assert.Equal(t, real, conclusiveKey(caa("letsencrypt.org")))
	long := strings.Repeat("a", 2000)
	assert.NotEqual(t, conclusiveKey(caa(long)), conclusiveKey(caa(long+"b")), "a value too long to pack is compared by its bytes")
}

// TestTombstoneComparesADOfSameServer: a later reply with the taken
// answer's records but another AD bit contradicts it when it comes from
// the server the taken one came from (a forgery of unsigned records
// that claims they are validated, or one that strips the claim), and
// not when it comes from another server of the lookup, which may be a
// resolver that does not validate.
func TestTombstoneComparesADOfSameServer(t *testing.T) {
	t.Parallel()
	mx := func(ad bool) *dns.Msg {
		m := answerMsg(t, "example.test.", dns.TypeMX, "example.test. 300 IN MX 10 mx.example.test.")
		m.AuthenticatedData = ad
		return m
	}
	for _, ad := range []bool{false, true} {
		w, conflicts := countingWaiter()
		w.decide(mx(ad), 1)
		w.deliver(reply{server: 1, msg: mx(ad)})
		w.deliver(reply{server: 0, msg: mx(!ad)})
		w.deliver(reply{server: 2, msg: mx(!ad)})
		assert.Zero(t, conflicts.Load(), "AD %v: the same reply, or another server's AD bit, evicted the answer", ad)
		w.deliver(reply{server: 1, msg: mx(!ad)})
		assert.Equal(t, int32(1), conflicts.Load(), "AD %v: the same server's other AD bit did not evict the answer", ad)
	}
}

// TestConclusiveKeyReadsPolicyAndSOA: the parts of a reply besides its
// records that decide what the answer is are part of the key: an
// Extended DNS Error saying that the resolver's policy made the answer
// (which then reads as inconclusive), and a SOA record in the authority
// section (which makes a reply that stops at an alias final).
func TestConclusiveKeyReadsPolicyAndSOA(t *testing.T) {
	t.Parallel()
	base := func() *dns.Msg {
		return answerMsg(t, "a.example.test.", dns.TypeA, "a.example.test. 60 IN CNAME b.example.test.")
	}
	plain := conclusiveKey(base())
	blocked := base()
	blocked.SetEdns0(1232, false)
	opt := blocked.IsEdns0()
	opt.Option = append(opt.Option, &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeBlocked})
	assert.NotEqual(t, plain, conclusiveKey(blocked), "an EDE of the resolver's policy")
	stale := base()
	stale.SetEdns0(1232, false)
	opt = stale.IsEdns0()
	opt.Option = append(opt.Option, &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeStaleAnswer})
	assert.Equal(t, plain, conclusiveKey(stale), "an EDE that does not change the answer")
	final := base()
	soa, err := dns.NewRR("example.test. 60 IN SOA ns.example.test. host.example.test. 1 3600 600 86400 60")
	require.NoError(t, err)
	final.Ns = []dns.RR{soa}
	assert.NotEqual(t, plain, conclusiveKey(final), "a SOA in the authority section")
}

// TestComparePanicEvicts: a reply whose key cannot be worked out (a
// panic below conclusiveKey, on the reader's goroutine) is taken as
// contradicting the answer, and does not end the process; a taken reply
// whose key cannot be worked out is contradicted by the next conclusive
// reply.
func TestComparePanicEvicts(t *testing.T) {
	t.Parallel()
	ok := answerMsg(t, "a.example.test.", dns.TypeA, "a.example.test. 60 IN A 192.0.2.1")
	broken := ok.Copy()
	broken.Answer = []dns.RR{nil}
	_, fine := safeKey(broken)
	require.False(t, fine, "a nil record did not panic below conclusiveKey")

	w, conflicts := countingWaiter()
	w.decide(ok, 0)
	require.NotPanics(t, func() { w.deliver(reply{msg: broken}) })
	assert.Equal(t, int32(1), conflicts.Load(), "a reply that broke the comparison did not evict the answer")

	w, conflicts = countingWaiter()
	require.NotPanics(t, func() { w.decide(broken, 0) })
	w.deliver(reply{msg: ok})
	assert.Equal(t, int32(1), conflicts.Load(), "an answer whose key broke was not evicted by the next reply")
}

// TestTombstoneComparesDigest: an ended lookup keeps only the digest of
// the answer it took, and a later reply is compared with it as with the
// answer: the same records in another order, names' case or TTL agree, an
// error reply concludes nothing, other records contradict (once). A
// lookup below no Cache keeps nothing and is never buried.
func TestTombstoneComparesDigest(t *testing.T) {
	t.Parallel()
	msg := func(rcode int, recs ...string) *dns.Msg {
		m := answerMsg(t, "a.example.test.", dns.TypeA, recs...)
		m.Rcode = rcode
		return m
	}
	w, conflicts := countingWaiter()
	w.decide(msg(dns.RcodeSuccess, "a.example.test. 60 IN A 192.0.2.1", "a.example.test. 60 IN A 192.0.2.2"), 0)
	require.True(t, w.tombstones())
	w.deliver(reply{msg: msg(dns.RcodeSuccess, "A.Example.TEST. 300 IN A 192.0.2.2", "a.example.test. 5 IN A 192.0.2.1")})
	w.deliver(reply{msg: msg(dns.RcodeServerFailure)})
	w.deliver(reply{})
	assert.Zero(t, conflicts.Load(), "an agreeing or inconclusive reply evicted the answer")
	w.deliver(reply{msg: msg(dns.RcodeSuccess, "a.example.test. 60 IN A 192.0.2.1")})
	assert.Equal(t, int32(1), conflicts.Load(), "a reply with fewer records did not evict the answer")
	w.deliver(reply{msg: msg(dns.RcodeNameError)})
	assert.Equal(t, int32(1), conflicts.Load(), "the answer was evicted twice")

	plain := newWaiter()
	plain.decide(msg(dns.RcodeSuccess, "a.example.test. 60 IN A 192.0.2.1"), 0)
	assert.False(t, plain.tombstones(), "a lookup below no Cache keeps tombstones")
	assert.Equal(t, answerKey{}, plain.takenKey, "a lookup below no Cache keeps a digest")
}

// TestMixedCase: the name of a TCP probe has an upper- and a lower-case
// letter whenever it has two letters.
func TestMixedCase(t *testing.T) {
	t.Parallel()
	for range 200 {
		got := mixedCase("ab.")
		assert.Contains(t, []string{"Ab.", "aB."}, got)
	}
	assert.Equal(t, "1.2.", mixedCase("1.2."))
}

// TestMissesDecay: replies in a row without the case or the cookie are
// counted only while they keep coming: after missDecay without one, the
// count starts again.
func TestMissesDecay(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	var at atomic.Int64
	assert.Equal(t, int32(1), inARow(&n, &at))
	assert.Equal(t, int32(2), inARow(&n, &at))
	at.Store(time.Now().Add(-2 * missDecay).UnixNano())
	assert.Equal(t, int32(1), inARow(&n, &at), "the run ended a while ago")
}

// TestCaseStaysOnWithoutTCP: replies in the wrong case, however many,
// never switch 0x20 off when the server cannot be asked over TCP (here
// its TCP port closes every connection): an off-path forger can send
// them, the TCP reply decides.
func TestCaseStaysOnWithoutTCP(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	p := &pool{}
	u := p.upstream(l.Addr().String(), nil, DefaultUDPSize)
	e := queryEntry(t, u, "victim.example.test.")
	for range 3 * caseFallbackAfter {
		u.caseMismatch(e)
		require.Eventually(t, func() bool { return !u.probing.Load() }, time.Minute, time.Millisecond)
	}
	assert.Positive(t, accepted.Load(), "asked over TCP")
	assert.True(t, u.caseOn(), "0x20 stays on")
}

// TestProbeFreeWhenItsReplyIsHandedOn: a TCP probe's reply ends the
// lookup it was asked for, and the next lookup may need a probe at once
// (a forger sending wrong-case replies to every question). So the probe
// is over, and another may start, before its reply is handed on: the
// lookup's kick, which moves it on in the goroutine that delivers, sees
// no probe under way.
func TestProbeFreeWhenItsReplyIsHandedOn(t *testing.T) {
	t.Parallel()
	addr, _ := echoTCP(t)
	u := (&pool{}).upstream(addr, nil, DefaultUDPSize)
	e := queryEntry(t, u, "victim.example.test.")
	probing := make(chan bool, 1)
	e.w.kick = func() { probing <- u.probing.Load() }
	u.probe(e, probeCase)
	busy := receive(t, probing, "the probe's reply was handed on")
	assert.False(t, busy, "a probe was still under way when its reply was handed on")
	r := e.w.take()
	require.NotNil(t, r)
	assert.True(t, r.tcp)
	assert.True(t, u.caseOn(), "the server echoes the case over TCP: 0x20 stays on")
}

// TestNoProbeForEndedLookup: replies in the wrong case to a lookup that
// has ended without taking a UDP answer (a forger's, to its last
// queries) start no TCP probe, which would hold the server's one probe
// while the next lookup's wrong-case replies go unanswered, and leave the
// count as it is: the next lookup's first such reply starts one, and the
// lookup gets its reply. (A lookup that took a UDP answer does get one:
// TestTombstoneProbeEvictsForgery.)
func TestNoProbeForEndedLookup(t *testing.T) {
	t.Parallel()
	addr, asked := echoTCP(t)
	u := (&pool{}).upstream(addr, nil, DefaultUDPSize)
	ended := queryEntry(t, u, "ended.example.test.")
	ended.w.decide(nil, 0)
	for range caseFallbackAfter {
		u.caseMismatch(ended)
	}
	assert.False(t, u.probing.Load(), "a probe started for a lookup that has ended")
	next := queryEntry(t, u, "next.example.test.")
	got := make(chan struct{}, 1)
	next.w.kick = func() { got <- struct{}{} }
	u.caseMismatch(next)
	// A probe is under way, or has asked already.
	assert.True(t, u.probing.Load() || asked.Load() == 1, "the next lookup's first wrong-case reply started no probe")
	receive(t, got, "the next lookup's probe answered it")
	assert.Equal(t, int32(1), asked.Load(), "TCP questions: the next lookup's probe only")
}

// TestEndedLeavesTheCount: a server that never echoes the case, also
// over TCP, whose every third wrong-case reply in a row comes to a lookup
// that has ended without a UDP answer. That reply starts no probe and
// leaves the count, so the next one probes and 0x20 is switched off (had
// it reset the count, a forger answering ended lookups could keep 0x20
// on and every lookup waiting).
func TestEndedLeavesTheCount(t *testing.T) {
	t.Parallel()
	addr, _ := lowerCaseTCP(t)
	u := (&pool{}).upstream(addr, nil, DefaultUDPSize)
	for range 20 {
		live := queryEntry(t, u, "live.example.test.")
		u.caseMismatch(live)
		u.caseMismatch(live)
		ended := queryEntry(t, u, "ended.example.test.")
		ended.w.decide(nil, 0)
		u.caseMismatch(ended)
	}
	require.Eventually(t, func() bool { return !u.caseOn() }, time.Minute, time.Millisecond,
		"60 wrong-case replies from a server that never echoes the case: 0x20 still on")
}

// TestCookieOptionWire: the COOKIE option a query carries (decoded once,
// see cookieOption) packs to the same bytes as miekg/dns's EDNS0_COOKIE,
// for a client cookie alone and with server cookies of 8 and 32 octets,
// and reads back as the same cookie.
func TestCookieOptionWire(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"0123456789abcdef", "0123456789abcdef0011223344556677", "0123456789abcdef00112233445566778899aabbccddeeff0011223344556677"} {
		m := new(dns.Msg)
		m.SetQuestion("a.example.", dns.TypeA)
		m.SetEdns0(DefaultUDPSize, false)
		want, got := m.Copy(), m.Copy()
		want.IsEdns0().Option = []dns.EDNS0{&dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: c}}
		got.IsEdns0().Option = []dns.EDNS0{cookieOption(c)}
		pw, err := want.Pack()
		require.NoError(t, err)
		pg, err := got.Pack()
		require.NoError(t, err)
		require.Equal(t, pw, pg)
		back := new(dns.Msg)
		require.NoError(t, back.Unpack(pg))
		read, ok := cookieOf(back)
		require.True(t, ok)
		assert.Equal(t, c, read)
	}
}

// TestHandleKeepsNothingOfTheBuffer: the reader's buffer is shared with
// the next datagram, so a delivered reply must hold no slice of it; the
// record whose unpacking is most likely to alias the wire bytes (the IP
// hints of an HTTPS record, which miekg/dns copies) is checked after the
// buffer is overwritten.
func TestHandleKeepsNothingOfTheBuffer(t *testing.T) {
	t.Parallel()
	p := &pool{}
	u := p.upstream("127.0.0.1:53", nil, DefaultUDPSize)
	s := &socket{up: u, born: time.Now(), limit: socketBatch} // no connection: handle is called directly
	e := queryEntry(t, u, "q.example.test.")
	id, ok := s.register(&e)
	require.True(t, ok)

	m := new(dns.Msg)
	m.Question = []dns.Question{e.question()}
	m.Id, m.Response = id, true
	hint := &dns.SVCBIPv4Hint{Hint: []net.IP{net.IPv4(192, 0, 2, 1).To4()}}
	m.Answer = []dns.RR{&dns.HTTPS{SVCB: dns.SVCB{
		Hdr:      dns.RR_Header{Name: e.name, Rrtype: dns.TypeHTTPS, Class: dns.ClassINET, Ttl: 60},
		Priority: 1, Target: ".", Value: []dns.SVCBKeyValue{hint},
	}}}
	b, err := m.Pack()
	require.NoError(t, err)

	s.handle(b)
	clear(b) // the next datagram, read into the same buffer
	r := e.w.take()
	require.NotNil(t, r, "no reply delivered")
	require.NotNil(t, r.msg, "the reply, not a failure")
	require.Len(t, r.msg.Answer, 1)
	got := r.msg.Answer[0].(*dns.HTTPS).Value[0].(*dns.SVCBIPv4Hint).Hint[0]
	assert.Equal(t, "192.0.2.1", got.String(), "the hint is the reply's, not the buffer's next contents")
}

// serveTCP serves DNS over TCP on a port of 127.0.0.1, answering each
// query with what answer makes of it, and returns the port's address.
func serveTCP(t *testing.T, answer func(q *dns.Msg) *dns.Msg) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveDNS(t, &dns.Server{Listener: l, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		_ = w.WriteMsg(answer(r))
	})})
	return l.Addr().String()
}

// lowerCaseTCP starts a loopback DNS server over TCP that answers every
// question with A 192.0.2.99, its name in lower case (it does not echo
// 0x20), and no cookie; it returns its address and how many questions
// it was asked.
func lowerCaseTCP(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	addr := serveTCP(t, func(r *dns.Msg) *dns.Msg {
		asked.Add(1)
		r.Question[0].Name = strings.ToLower(r.Question[0].Name)
		return replyA(r, "192.0.2.99")
	})
	return addr, &asked
}

// receive returns what ch gives, failing t with what when it gives
// nothing within a minute (a bound on a hang, not a timing).
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("not within a minute: %s", what)
		var zero T
		return zero
	}
}

// echoTCP serves DNS over TCP on a port of 127.0.0.1, answering each
// question in the case it was asked, and counts the questions.
func echoTCP(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	addr := serveTCP(t, func(r *dns.Msg) *dns.Msg {
		asked.Add(1)
		return replyA(r, "192.0.2.1")
	})
	return addr, &asked
}

// flipCase turns the case of every letter of s: never the case a query
// was sent in.
func flipCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b[i] ^= 0x20
		}
	}
	return string(b)
}

// replyTo packs a reply to e under id, asking name, with the records
// recs.
func replyTo(t *testing.T, e entry, id uint16, name string, recs ...string) []byte {
	t.Helper()
	m := new(dns.Msg)
	m.Question = []dns.Question{{Name: name, Qtype: e.qtype, Qclass: e.qclass}}
	m.Id, m.Response = id, true
	for _, r := range recs {
		rr, err := dns.NewRR(r)
		require.NoError(t, err)
		m.Answer = append(m.Answer, rr)
	}
	b, err := m.Pack()
	require.NoError(t, err)
	return b
}

// TestTombstoneProbeEvictsForgery: a server stopped echoing the case
// while 0x20 is still on, so a forger who matched port, ID and case gave
// the only UDP reply a lookup could take. The server's own reply to that
// query comes late, in the wrong case, on the tombstone, as the third
// such reply in a row: the TCP probe it makes is asked the query, and
// its answer, handed to the ended lookup, contradicts the forgery, which
// is evicted. (A tombstone keeps its question for this: the probe asks
// it with the CD bit the query had.)
func TestTombstoneProbeEvictsForgery(t *testing.T) {
	t.Parallel()
	addr, asked := lowerCaseTCP(t)
	u := (&pool{}).upstream(addr, nil, DefaultUDPSize)
	s := &socket{up: u, born: time.Now(), limit: socketBatch} // no connection: handle is called directly
	name := "victim.example.test."

	e := queryEntry(t, u, name)
	var conflicts atomic.Int32
	e.w.conflict = conflictFunc(func() { conflicts.Add(1) })
	id, ok := s.register(&e)
	require.True(t, ok)
	s.handle(replyTo(t, e, id, e.name, e.name+" 60 IN A 203.0.113.66")) // the forgery, in the query's case
	r := e.w.take()
	require.NotNil(t, r, "the forgery queued")
	require.NotNil(t, r.msg)
	e.w.decide(r.msg, 0)
	s.bury(id)
	for range 2 { // two wrong-case replies to lookups in flight
		o := queryEntry(t, u, name)
		oid, ok := s.register(&o)
		require.True(t, ok)
		s.handle(replyTo(t, o, oid, flipCase(o.name)))
	}
	s.handle(replyTo(t, e, id, flipCase(e.name), flipCase(e.name)+" 60 IN A 192.0.2.99"))
	require.Eventually(t, func() bool { return conflicts.Load() > 0 }, 30*time.Second, 5*time.Millisecond,
		"the forged answer was not evicted (TCP questions asked: %d)", asked.Load())
	assert.Equal(t, int32(1), asked.Load(), "TCP questions asked")
	assert.False(t, u.caseOn(), "a server that does not echo the case, also over TCP, keeps 0x20 on")
}

// TestPeakOf: the most a buffer held while a reader read it is what the
// kernel had queued before, or what is queued after and what was read,
// whichever is more (a drain that read a flood leaves the buffer empty;
// a datagram read whole counts at its whole length and overhead).
func TestPeakOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, uint64(60_000), peakOf(sockMem{queued: 60_000}, sockMem{}, 1_000), "the figure before the read")
	assert.Equal(t, uint64(5_000+2*(1_200+datagramOverhead)),
		peakOf(sockMem{queued: 1_000}, sockMem{queued: 5_000}, 2*(1_200+datagramOverhead)), "what is queued after and what was read")
	assert.Equal(t, uint64(0), peakOf(sockMem{}, sockMem{}, 0))
}

// TestProbeAsksTheQuery: a TCP probe asks what the UDP query it checks
// asked, bit for bit but for its ID and the case of its name: the
// flags (RD, AD, CD), the class, the EDNS UDP size the query advertised
// (also when the Client's size changed after the upstream was made)
// and the cookie. The entry keeps no packed query; the probe builds one
// from what the entry keeps (see askOverTCP).
func TestProbeAsksTheQuery(t *testing.T) {
	t.Parallel()
	asked := make(chan *dns.Msg, 1)
	addr := serveTCP(t, func(r *dns.Msg) *dns.Msg {
		asked <- r.Copy()
		return replyA(r, "192.0.2.1")
	})
	norm := func(m *dns.Msg) string {
		m.Id = 0
		m.Question[0].Name = strings.ToLower(m.Question[0].Name)
		return m.String()
	}
	for _, size := range []uint16{0, 4096} {
		for _, cd := range []bool{false, true} {
			for _, caseOn := range []bool{false, true} {
				name := fmt.Sprintf("size=%d cd=%v 0x20=%v", size, cd, caseOn)
				c := &Client{}
				u := (&pool{}).upstream(addr, nil, c.udpSize())
				c.UDPSize = size // after the upstream was made
				if !caseOn {
					u.noCaseUntil.Store(time.Now().Add(time.Hour).UnixNano())
				}
				var e entry
				wire, err := u.entry(c.query("Mail.Example.TEST", TypeTXT, cd), 0, newWaiter(), &e)
				require.NoError(t, err, name)
				sent := new(dns.Msg)
				require.NoError(t, sent.Unpack(wire), name)
				for _, kind := range []probeKind{probeCase, probeCookie} {
					require.NotNil(t, u.askOverTCP(e, kind), name)
					got := receive(t, asked, "the probe's query")
					assert.Equal(t, norm(sent.Copy()), norm(got), "%s, probe %d", name, kind)
				}
			}
		}
	}
}
