package resolver_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// outcomeCase is one question and the Answer a Client must return for it.
type outcomeCase struct {
	name  string
	qname string
	qtype resolver.Type
	want  resolver.Answer
}

// outcomeCases covers every outcome the zone file can produce without
// faults. It is shared by the Client tests (UDP and TCP) and the
// consistency test of dnstest.Resolver.
func outcomeCases() []outcomeCase {
	const z = ".resolver.test"
	chain8 := []string{"chain8-1" + z, "chain8-2" + z, "chain8-3" + z, "chain8-4" + z, "chain8-5" + z, "chain8-6" + z, "chain8-7" + z, "chain8-8" + z}
	var chainOver []string // the aliases followed before the bound
	for i := 1; i <= resolver.MaxCNAMEChain; i++ {
		chainOver = append(chainOver, fmt.Sprintf("chainover-%d%s", i, z))
	}
	return []outcomeCase{
		{"a", "a" + z, resolver.TypeA, found(rrA("a"+z, "192.0.2.1"), rrA("a"+z, "192.0.2.2"))},
		{"aaaa", "aaaa" + z, resolver.TypeAAAA, found(rrA("aaaa"+z, "2001:db8::1"))},
		{"mx", "mx" + z, resolver.TypeMX, found(
			resolver.Record{Name: "mx" + z, Type: resolver.TypeMX, TTL: 300, Preference: 10, Target: "mx1" + z},
			resolver.Record{Name: "mx" + z, Type: resolver.TypeMX, TTL: 300, Preference: 20, Target: "mx2" + z})},
		{"null-mx", "null-mx" + z, resolver.TypeMX, found(resolver.Record{Name: "null-mx" + z, Type: resolver.TypeMX, TTL: 300})},
		{"txt-multi-string", "txt" + z, resolver.TypeTXT, found(
			rrTXT("txt"+z, "v=spf1 ", "include:_spf.resolver.test", " -all"),
			rrTXT("txt"+z, "second record"))},
		{"txt-escapes", "escapes" + z, resolver.TypeTXT, found(
			rrTXT("escapes"+z, `quote"d`, `back\slash`, "\x00\xff\nend", "semi;colon", ""))},
		{"txt-4k", "big" + z, resolver.TypeTXT, found(rrTXT("big"+z, bigTXT...))},
		{"ptr-v4", resolver.ReverseName(addr("192.0.2.1")), resolver.TypePTR, found(
			rrTarget("1.2.0.192.in-addr.arpa", resolver.TypePTR, "a"+z),
			rrTarget("1.2.0.192.in-addr.arpa", resolver.TypePTR, "alias"+z))},
		{"ptr-v6", resolver.ReverseName(addr("2001:db8::1")), resolver.TypePTR, found(
			rrTarget(resolver.ReverseName(addr("2001:db8::1")), resolver.TypePTR, "aaaa"+z))},
		{"caa", "caa" + z, resolver.TypeCAA, found(
			resolver.Record{Name: "caa" + z, Type: resolver.TypeCAA, TTL: 300, CAATag: "issue", CAAValue: "ca.example.test; account=42"},
			resolver.Record{Name: "caa" + z, Type: resolver.TypeCAA, TTL: 300, CAAFlags: 128, CAATag: "tbs", CAAValue: "critical"},
			resolver.Record{Name: "caa" + z, Type: resolver.TypeCAA, TTL: 300, CAATag: "iodef", CAAValue: "mailto:security@resolver.test"})},
		{"caa-escapes", "caa-escapes" + z, resolver.TypeCAA, found(
			resolver.Record{Name: "caa-escapes" + z, Type: resolver.TypeCAA, TTL: 300, CAATag: "issue", CAAValue: `ca.example.test; note=back\slash "q"`})},
		{"case-insensitive-query", "A.Resolver.TEST.", resolver.TypeA, found(rrA("a"+z, "192.0.2.1"), rrA("a"+z, "192.0.2.2"))},
		{"case-insensitive-owner", "mixedcase" + z, resolver.TypeA, found(rrA("mixedcase"+z, "192.0.2.3"))},
		{"trailing-dot", "aaaa" + z + ".", resolver.TypeAAAA, found(rrA("aaaa"+z, "2001:db8::1"))},
		{"nodata", "nodata" + z, resolver.TypeTXT, noData()},
		{"nodata-other-type", "a" + z, resolver.TypeAAAA, noData()},
		{"nodata-apex", "resolver.test", resolver.TypeTXT, noData()},
		{"empty-non-terminal", "_domainkey" + z, resolver.TypeTXT, noData()},
		{"nxdomain", "missing" + z, resolver.TypeA, nxDomain()},
		{"nxdomain-below-existing", "x.a" + z, resolver.TypeA, nxDomain()},
		{"nxdomain-outside-zones", "nowhere.example", resolver.TypeTXT, nxDomain()},
		{"wildcard", "anything.wild" + z, resolver.TypeTXT, found(rrTXT("anything.wild"+z, "wildcard"))},
		{"wildcard-two-labels", "a.b.wild" + z, resolver.TypeTXT, found(rrTXT("a.b.wild"+z, "wildcard"))},
		{"wildcard-not-for-existing", "exists.wild" + z, resolver.TypeTXT, noData()},
		{"wildcard-not-below-existing", "x.exists.wild" + z, resolver.TypeTXT, nxDomain()},
		{"wildcard-other-type", "anything.wild" + z, resolver.TypeA, noData()},
		{"cname-in-zone", "alias" + z, resolver.TypeA, withCNAMEs(found(rrA("a"+z, "192.0.2.1"), rrA("a"+z, "192.0.2.2")), "a"+z)},
		{"cname-two-hops", "alias2" + z, resolver.TypeA, withCNAMEs(found(rrA("a"+z, "192.0.2.1"), rrA("a"+z, "192.0.2.2")), "alias"+z, "a"+z)},
		{"cname-to-nodata", "alias" + z, resolver.TypeTXT, noData("a" + z)},
		{"cname-asked", "alias" + z, resolver.TypeCNAME, found(rrTarget("alias"+z, resolver.TypeCNAME, "a"+z))},
		{"cname-cross-zone", "cross" + z, resolver.TypeTXT, withCNAMEs(found(rrTXT("target.other.test", "cross-zone")), "target.other.test")},
		{"cname-dangling", "dangling" + z, resolver.TypeA, nxDomain("missing.other.test")},
		{"cname-loop", "loop1" + z, resolver.TypeA, inconclusive(resolver.ReasonCNAMELoop, dns.RcodeServerFailure, "loop2"+z)},
		{"cname-self", "self" + z, resolver.TypeA, inconclusive(resolver.ReasonCNAMELoop, dns.RcodeServerFailure)},
		{"cname-chain-8", "chain8" + z, resolver.TypeA, withCNAMEs(found(rrA("chain8-8"+z, "192.0.2.8")), chain8...)},
		{"cname-chain-over", "chainover" + z, resolver.TypeA, inconclusive(resolver.ReasonCNAMEChain, dns.RcodeSuccess, chainOver...)},
	}
}

// TestClientOutcomes asks a real server over UDP, and again with every
// UDP reply truncated so that each answer comes over TCP.
func TestClientOutcomes(t *testing.T) {
	t.Parallel()
	z := zones(t)
	for _, network := range []string{"udp", "tcp"} {
		t.Run(network, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			cases := outcomeCases()
			if network == "tcp" {
				for _, tc := range cases {
					srv.SetFault(tc.qname, dnstest.AnyType, dnstest.Truncate)
				}
			}
			c := client(srv)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					assert.Equal(t, tc.want, c.Lookup(t.Context(), tc.qname, tc.qtype), "answer mismatch")
					got := nets(srv, tc.qname)
					if network == "tcp" {
						assert.Contains(t, got, "tcp", "server saw %q over %v, want tcp too", tc.qname, got)
					}
				})
			}
		})
	}
}

func TestClientFaults(t *testing.T) {
	t.Parallel()
	z := zones(t)
	const name = "a.resolver.test"
	foundA := found(rrA(name, "192.0.2.1"), rrA(name, "192.0.2.2"))
	tests := []struct {
		name  string
		fault dnstest.Fault
		want  resolver.Answer
		nets  []string // networks the server saw the question over
	}{
		// An error reply is asked once more, on a fresh socket, before
		// it counts. The A question twice, then the chain test's CNAME
		// question (the CD test's questions are not counted).
		{"servfail", dnstest.ServFail, inconclusive(resolver.ReasonServFail, dns.RcodeServerFailure), []string{"udp", "udp", "udp"}},
		{"refused", dnstest.Refused, inconclusive(resolver.ReasonRefused, dns.RcodeRefused), []string{"udp", "udp"}},
		{"notimp", dnstest.Fault{Rcode: dns.RcodeNotImplemented}, inconclusive(resolver.ReasonRcode, dns.RcodeNotImplemented), []string{"udp", "udp"}},
		{"timeout", dnstest.Drop, inconclusive(resolver.ReasonTimeout, -1), []string{"udp"}},
		{"garbage", dnstest.Garbage, inconclusive(resolver.ReasonMalformed, -1), []string{"udp"}},
		{"truncated", dnstest.Truncate, foundA, []string{"udp", "tcp"}},
		{"delay-within-timeout", dnstest.Delay(50 * time.Millisecond), foundA, []string{"udp"}},
		{"delay-past-timeout", dnstest.Delay(5 * time.Second), inconclusive(resolver.ReasonTimeout, -1), []string{"udp"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.SetFault(name, resolver.TypeA, tc.fault)
			c := srv.Client(faultTimeout)
			assert.Equal(t, tc.want, c.Lookup(t.Context(), name, resolver.TypeA), "answer mismatch")
			// A dropped question may be logged a moment after the
			// Client gave up on it.
			waitFor(t, func() bool { return len(nets(srv, name)) >= len(tc.nets) })
			assert.Equal(t, tc.nets, nets(srv, name), "server saw the question over")
		})
	}
}

// faultTimeout is the per-attempt timeout of tests that expect some
// attempts to time out and others to succeed: short enough to keep the
// suite quick, long enough for a loaded machine running -race.
const faultTimeout = time.Second

// TestClientFaultOnCNAMETarget: a fault on the target of an alias applies
// to the question, as through a recursive resolver.
func TestClientFaultOnCNAMETarget(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("target.other.test", dnstest.AnyType, dnstest.ServFail)
	got := client(srv).Lookup(t.Context(), "cross.resolver.test", resolver.TypeTXT)
	assert.Equal(t, inconclusive(resolver.ReasonServFail, dns.RcodeServerFailure), got, "answer mismatch")
}

// TestClientTimeoutBound: a dropped question is inconclusive within
// attempts × timeout (plus slack for a loaded machine), having waited for
// each attempt.
func TestClientTimeoutBound(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("a.resolver.test", dnstest.AnyType, dnstest.Drop)
	const timeout, attempts = 200 * time.Millisecond, 2
	c := &resolver.Client{Servers: []string{srv.Addr()}, Timeout: timeout, Attempts: attempts}
	start := time.Now()
	got := c.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
	elapsed := time.Since(start)
	assert.Equal(t, inconclusive(resolver.ReasonTimeout, -1), got, "answer mismatch")
	limit := attempts*timeout + 2*time.Second
	assert.LessOrEqual(t, elapsed, limit, "took %v, want at most %v", elapsed, limit)
	assert.GreaterOrEqual(t, elapsed, attempts*timeout, "took %v, want at least %v (each attempt waits its timeout)", elapsed, attempts*timeout)
	// The server may log the second question a moment after the Client
	// gave up on it.
	waitFor(t, func() bool { return srv.Count("a.resolver.test", resolver.TypeA) == attempts })
}

// TestClientRetryNextServer: with a failing server first and a good one
// second, the retry goes to the second and the lookup succeeds.
func TestClientRetryNextServer(t *testing.T) {
	t.Parallel()
	z := zones(t)
	const name = "a.resolver.test"
	foundA := found(rrA(name, "192.0.2.1"), rrA(name, "192.0.2.2"))
	tests := []struct {
		name  string
		fault dnstest.Fault
		bad   int // questions the bad server gets: an error reply is asked once more before it counts
	}{
		{"servfail", dnstest.ServFail, 2},
		{"refused", dnstest.Refused, 2},
		{"drop", dnstest.Drop, 1},
		{"garbage", dnstest.Garbage, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bad, good := dnstest.Start(t, z), dnstest.Start(t, z)
			bad.SetFault(name, dnstest.AnyType, tc.fault)
			c := &resolver.Client{Servers: []string{bad.Addr(), good.Addr()}, Timeout: faultTimeout, Attempts: 2}
			assert.Equal(t, foundA, c.Lookup(t.Context(), name, resolver.TypeA), "answer mismatch")
			waitFor(t, func() bool { return bad.Count(name, resolver.TypeA) >= tc.bad })
			b, g := bad.Count(name, resolver.TypeA), good.Count(name, resolver.TypeA)
			assert.Equal(t, tc.bad, b, "bad server got %d questions, good %d; want %d and 1", b, g, tc.bad)
			assert.Equal(t, 1, g, "bad server got %d questions, good %d; want %d and 1", b, g, tc.bad)
		})
	}
	t.Run("both-fail", func(t *testing.T) {
		t.Parallel()
		s1, s2 := dnstest.Start(t, z), dnstest.Start(t, z)
		s1.SetFault(name, dnstest.AnyType, dnstest.ServFail)
		s2.SetFault(name, dnstest.AnyType, dnstest.Refused)
		c := &resolver.Client{Servers: []string{s1.Addr(), s2.Addr()}, Timeout: faultTimeout, Attempts: 2}
		// The last attempt's reason is reported.
		assert.Equal(t, inconclusive(resolver.ReasonRefused, dns.RcodeRefused), c.Lookup(t.Context(), name, resolver.TypeA), "answer mismatch")
	})
	t.Run("nxdomain-not-retried", func(t *testing.T) {
		t.Parallel()
		s1, s2 := dnstest.Start(t, z), dnstest.Start(t, z)
		c := &resolver.Client{Servers: []string{s1.Addr(), s2.Addr()}, Timeout: faultTimeout, Attempts: 2}
		assert.Equal(t, nxDomain(), c.Lookup(t.Context(), "missing.resolver.test", resolver.TypeA), "answer mismatch")
		assert.Equal(t, 0, s2.Count("missing.resolver.test", dnstest.AnyType), "second server asked, want never")
	})
}

// TestClientLargeAnswer: a 4 KB TXT answer does not fit the 1232-octet
// EDNS0 buffer, so the server truncates it and the Client asks over TCP.
func TestClientLargeAnswer(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	got := client(srv).Lookup(t.Context(), "big.resolver.test", resolver.TypeTXT)
	assert.Equal(t, found(rrTXT("big.resolver.test", bigTXT...)), got, "answer mismatch")
	assert.Len(t, got.TXTs()[0], 16*250, "joined TXT octets")
	assert.Equal(t, []string{"udp", "tcp"}, nets(srv, "big.resolver.test"), "server saw")
}

// TestClientEDNS0: the query carries an OPT record advertising 1232
// octets by default, or the configured size.
func TestClientEDNS0(t *testing.T) {
	t.Parallel()
	z := zones(t)
	for _, tc := range []struct {
		size, want uint16
	}{{0, resolver.DefaultUDPSize}, {4096, 4096}} {
		srv := dnstest.Start(t, z)
		c := &resolver.Client{Servers: []string{srv.Addr()}, UDPSize: tc.size, Attempts: 1}
		c.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
		q := srv.Queries()
		msg := []any{"UDPSize %d: server received %+v, want one udp query advertising %d", tc.size, q, tc.want}
		if assert.Len(t, q, 1, msg...) {
			assert.Equal(t, tc.want, q[0].UDPSize, msg...)
			assert.Equal(t, "udp", q[0].Net, msg...)
		}
	}
	assert.Equal(t, 1232, resolver.DefaultUDPSize, "DefaultUDPSize")
}

// TestClientQueryFlags: the query asks for recursion and for the AD bit,
// and the question name goes out in random case (0x20), which the answer
// does not keep.
func TestClientQueryFlags(t *testing.T) {
	t.Parallel()
	var got *dns.Msg
	done := make(chan struct{}, 1)
	server := startHandler(t, func(w dns.ResponseWriter, r *dns.Msg) {
		got = r.Copy()
		m := new(dns.Msg)
		m.SetReply(r)
		m.AuthenticatedData = true
		m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: addr("192.0.2.1").AsSlice()}}
		_ = w.WriteMsg(m)
		done <- struct{}{}
	}, false)
	c := &resolver.Client{Servers: []string{server}, Attempts: 1}
	a := c.Lookup(t.Context(), "Host.Example.TEST", resolver.TypeA)
	<-done
	want := resolver.Answer{Outcome: resolver.Found, Authentic: true, Records: []resolver.Record{{Name: "host.example.test", Type: resolver.TypeA, TTL: 60, Addr: addr("192.0.2.1")}}}
	assert.Equal(t, want, a, "answer mismatch")
	msg := []any{"query: rd=%v ad=%v name=%q; want rd, ad and host.example.test. in any case", got.RecursionDesired, got.AuthenticatedData, got.Question[0].Name}
	assert.True(t, got.RecursionDesired, msg...)
	assert.True(t, got.AuthenticatedData, msg...)
	assert.True(t, strings.EqualFold("host.example.test.", got.Question[0].Name), msg...)
}

// TestClientBadReplies uses a hand-written server for replies that
// dnstest does not produce.
func TestClientBadReplies(t *testing.T) {
	t.Parallel()
	reply := func(edit func(m *dns.Msg)) dns.HandlerFunc {
		return func(w dns.ResponseWriter, r *dns.Msg) {
			m := new(dns.Msg)
			m.SetReply(r)
			edit(m)
			_ = w.WriteMsg(m)
		}
	}
	tests := []struct {
		name     string
		h        dns.HandlerFunc
		tcpClose bool
		want     resolver.Answer
	}{
		{"other-question-name", reply(func(m *dns.Msg) { m.Question[0].Name = "other.test." }), false, inconclusive(resolver.ReasonTimeout, -1)},
		{"other-question-type", reply(func(m *dns.Msg) { m.Question[0].Qtype = dns.TypeMX }), false, inconclusive(resolver.ReasonTimeout, -1)},
		{"no-question", reply(func(m *dns.Msg) { m.Question = nil }), false, inconclusive(resolver.ReasonTimeout, -1)},
		{"not-a-response", reply(func(m *dns.Msg) { m.Response = false }), false, inconclusive(resolver.ReasonTimeout, -1)},
		{"truncated-tcp-fails", reply(func(m *dns.Msg) { m.Truncated = true }), true, inconclusive(resolver.ReasonTruncated, -1)},
		{"truncated-bytes", func(w dns.ResponseWriter, r *dns.Msg) {
			m := new(dns.Msg)
			m.SetReply(r)
			m.Answer = []dns.RR{&dns.TXT{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET}, Txt: []string{"cut"}}}
			b, _ := m.Pack()
			_, _ = w.Write(b[:len(b)-2])
		}, false, inconclusive(resolver.ReasonMalformed, -1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := startHandler(t, tc.h, tc.tcpClose)
			c := &resolver.Client{Servers: []string{server}, Timeout: time.Second, Attempts: 1}
			assert.Equal(t, tc.want, c.Lookup(t.Context(), "x.example.test", resolver.TypeA), "answer mismatch")
		})
	}
}

// TestClientUnreachable: nobody listens on the port (it was just freed:
// loopback answers ICMP port unreachable), or the address is unusable.
// An ICMP error, which anyone can forge, does not end an attempt: each
// waits its timeout, and the lookup whose every attempt met one reports
// ReasonNetwork.
func TestClientUnreachable(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	free := pc.LocalAddr().String()
	pc.Close()
	// The timeout only has to outlast the moment the socket's reader
	// takes the ICMP error on a loaded machine.
	const timeout = 3 * time.Second
	for _, server := range []string{free, "127.0.0.1"} {
		c := &resolver.Client{Servers: []string{server}, Timeout: timeout, Attempts: 1}
		start := time.Now()
		assert.Equal(t, inconclusive(resolver.ReasonNetwork, -1), c.Lookup(t.Context(), "a.example.test", resolver.TypeA), "answer mismatch")
		if server == free {
			assert.GreaterOrEqual(t, time.Since(start), timeout, "the attempt waited its timeout")
			assert.Positive(t, c.SpoofDrops()["icmp"], "the ICMP error is counted")
		}
	}
}

// TestClientRequery: when a recursive resolver stops at an alias without
// an SOA, the Client asks again for the target, and the whole chain
// stays bounded and loop-free.
func TestClientRequery(t *testing.T) {
	t.Parallel()
	// chain: each name is an alias for the next one, answered one hop per
	// reply; names absent from the map have an A record.
	chain := map[string]string{
		"start.test.":  "mid.test.",
		"mid.test.":    "end.test.",
		"loop-a.test.": "loop-b.test.",
		"loop-b.test.": "loop-a.test.",
	}
	for i := 0; i < resolver.MaxCNAMEChain+4; i++ {
		chain[hop("long", i)] = hop("long", i+1)
		if i < resolver.MaxCNAMEChain {
			chain[hop("eight", i)] = hop("eight", i+1) // exactly the bound
		}
	}
	server := startHandler(t, func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		name := strings.ToLower(r.Question[0].Name)
		hdr := dns.RR_Header{Name: name, Class: dns.ClassINET, Ttl: 60}
		if target, ok := chain[name]; ok {
			hdr.Rrtype = dns.TypeCNAME
			m.Answer = []dns.RR{&dns.CNAME{Hdr: hdr, Target: target}}
		} else {
			hdr.Rrtype = dns.TypeA
			m.Answer = []dns.RR{&dns.A{Hdr: hdr, A: addr("192.0.2.1").AsSlice()}}
		}
		_ = w.WriteMsg(m)
	}, false)
	c := &resolver.Client{Servers: []string{server}, Timeout: time.Second, Attempts: 1}
	rec := func(name string) resolver.Record {
		return resolver.Record{Name: name, Type: resolver.TypeA, TTL: 60, Addr: addr("192.0.2.1")}
	}
	eight := make([]string, resolver.MaxCNAMEChain)
	for i := range eight {
		eight[i] = resolver.CanonicalName(hop("eight", i+1))
	}
	long := make([]string, resolver.MaxCNAMEChain+1)
	for i := range long {
		long[i] = resolver.CanonicalName(hop("long", i+1))
	}
	tests := []struct {
		name string
		want resolver.Answer
	}{
		{"start.test", withCNAMEs(found(rec("end.test")), "mid.test", "end.test")},
		{"loop-a.test", inconclusive(resolver.ReasonCNAMELoop, 0, "loop-b.test", "loop-a.test")},
		{hop("eight", 0), withCNAMEs(found(rec(eight[len(eight)-1])), eight...)},
		{hop("long", 0), inconclusive(resolver.ReasonCNAMEChain, 0, long...)},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, c.Lookup(t.Context(), tc.name, resolver.TypeA), "answer mismatch")
	}
}

func hop(prefix string, i int) string {
	return prefix + string(rune('a'+i)) + ".test."
}

// TestClientInvalidName: a name that is not one is never asked ("." is:
// the root, TestLookupRoot).
func TestClientInvalidName(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	c := client(srv)
	for _, name := range []string{"", "..", "a..b", string(make([]byte, 300))} {
		assert.Equal(t, inconclusive(resolver.ReasonInvalidName, -1), c.Lookup(t.Context(), name, resolver.TypeA), "answer mismatch")
	}
	assert.Empty(t, srv.Queries(), "server received questions, want nothing")
}

// TestClientCanceled: a canceled caller gets ReasonCanceled promptly, not
// after the read timeout; a caller whose deadline passes gets
// ReasonTimeout as promptly.
func TestClientCanceled(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("a.resolver.test", dnstest.AnyType, dnstest.Drop)
	// A read timeout and a deadline no test outlasts: a lookup that
	// waited for them instead of its context's end would hang, whatever
	// the machine's load, rather than take a time that decides a verdict.
	c := &resolver.Client{Servers: []string{srv.Addr()}, Timeout: time.Hour, Attempts: 2}
	far, cancelFar := context.WithTimeout(t.Context(), 2*time.Hour)
	defer cancelFar()
	// The lookup's context ends once the server has its question: the
	// test, not the clock, decides that the lookup asked.
	ctx, cancel := context.WithCancel(far)
	srv.OnceAsked("a.resolver.test", dnstest.AnyType, cancel)
	assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), c.Lookup(ctx, "a.resolver.test", resolver.TypeA), "answer mismatch")

	// The deadline ends a lookup that asked: it timed out (no reply came
	// from the server meanwhile).
	dl := testlab.NewDeadline(far)
	srv.OnceAsked("a.resolver.test", dnstest.AnyType, dl.Pass)
	assert.Equal(t, inconclusive(resolver.ReasonTimeout, -1), c.Lookup(dl, "a.resolver.test", resolver.TypeA), "answer mismatch")

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), c.Lookup(ctx, "nodata.resolver.test", resolver.TypeA), "answer mismatch")
	assert.Equal(t, 0, srv.Count("nodata.resolver.test", dnstest.AnyType), "canceled lookup reached the server")
}

// TestNoGoroutineLeak runs servers and clients through every path that
// starts goroutines (UDP, TCP, timeouts, a delayed reply in flight at
// Close) and checks the goroutine count returns to where it was. It is
// not parallel, so nothing else runs meanwhile.
func TestNoGoroutineLeak(t *testing.T) {
	baseline := runtime.NumGoroutine()
	z := zones(t)
	for i := 0; i < 3; i++ {
		srv, err := dnstest.Listen(z)
		require.NoError(t, err)
		srv.SetFault("alias.resolver.test", dnstest.AnyType, dnstest.Truncate)
		srv.SetFault("nodata.resolver.test", dnstest.AnyType, dnstest.Drop)
		srv.SetFault("mx.resolver.test", dnstest.AnyType, dnstest.Delay(10*time.Second))
		c := srv.Client(100 * time.Millisecond)
		scan := resolver.NewScan(c, 0)
		for _, q := range []string{"a", "alias", "big", "nodata", "missing", "mx"} {
			scan.Lookup(t.Context(), q+".resolver.test", resolver.TypeA)
		}
		// Close while the delayed reply to mx is still being held back.
		srv.Close()
		srv.Close()
	}
	checkNoLeak(t, baseline)
}

// TestUndecodableThenSlow: a datagram that carries the lookup's ID but
// does not decode (anyone who guessed the port and the ID can send one)
// does not make the lookup "malformed" when the resolver answered other
// questions meanwhile and the lookup ran out of time: it was slow.
func TestUndecodableThenSlow(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{}, 1)
	server := startHandler(t, func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		if strings.EqualFold(r.Question[0].Name, "slow.example.test.") {
			b, _ := m.Pack()
			_, _ = w.Write(b[:len(b)-3]) // cut: does not decode
			select {
			case asked <- struct{}{}:
			default:
			}
			return
		}
		m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(192, 0, 2, 1)}}
		_ = w.WriteMsg(m)
	}, false)
	c := &resolver.Client{Servers: []string{server}, Timeout: time.Minute, Attempts: 1}
	ctx := testlab.NewDeadline(t.Context())
	got := make(chan resolver.Answer, 1)
	go func() { got <- c.Lookup(ctx, "slow.example.test", resolver.TypeA) }()
	<-asked
	require.Equal(t, resolver.Found, c.Lookup(t.Context(), "ok.example.test", resolver.TypeA).Outcome, "the resolver answers other questions")
	ctx.Pass()
	a := <-got
	assert.Equal(t, resolver.ReasonSlow, a.Reason, "%v/%v", a.Outcome, a.Reason)
}
