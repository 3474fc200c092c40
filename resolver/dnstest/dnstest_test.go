package dnstest_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

const zoneText = `
$ORIGIN dnstest.test.
@        SOA  ns.dnstest.test. hostmaster.dnstest.test. 7 3600 600 86400 300
host     A    192.0.2.1
host     TXT  "text"
alias    CNAME host
a.b.c    TXT  "deep"
*.wild   TXT  "wildcard"
$ORIGIN nosoa.test.
name     A    192.0.2.2
`

func testZones(t *testing.T) *dnstest.Zones {
	t.Helper()
	return dnstest.MustParse(t, zoneText)
}

// exchange sends one raw question to srv over network.
func exchange(t *testing.T, srv *dnstest.Server, network, name string, qtype uint16, edns bool) *dns.Msg {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), qtype)
	if edns {
		q.SetEdns0(1232, false)
	}
	c := &dns.Client{Net: network, Timeout: 2 * time.Second}
	m, _, err := c.Exchange(q, srv.Addr())
	require.NoError(t, err, "%s %s", network, name)
	return m
}

// TestServerMessages checks the raw replies: RCODE, the SOA in the
// authority section of negative answers (RFC 2308), flags.
func TestServerMessages(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	tests := []struct {
		name    string
		qtype   uint16
		rcode   int
		answers int
		soa     string // owner of the SOA in the authority section, "" for none
	}{
		{"host.dnstest.test", dns.TypeA, dns.RcodeSuccess, 1, ""},
		{"host.dnstest.test", dns.TypeMX, dns.RcodeSuccess, 0, "dnstest.test."},
		{"b.c.dnstest.test", dns.TypeTXT, dns.RcodeSuccess, 0, "dnstest.test."}, // empty non-terminal
		{"missing.dnstest.test", dns.TypeA, dns.RcodeNameError, 0, "dnstest.test."},
		{"alias.dnstest.test", dns.TypeA, dns.RcodeSuccess, 2, ""},
		{"x.wild.dnstest.test", dns.TypeTXT, dns.RcodeSuccess, 1, ""},
		{"missing.nosoa.test", dns.TypeA, dns.RcodeNameError, 0, "test."}, // synthetic SOA
		{"nowhere.example", dns.TypeA, dns.RcodeNameError, 0, "example."},
	}
	for _, network := range []string{"udp", "tcp"} {
		for _, tc := range tests {
			m := exchange(t, srv, network, tc.name, tc.qtype, true)
			soa := ""
			if len(m.Ns) == 1 && m.Ns[0].Header().Rrtype == dns.TypeSOA {
				soa = m.Ns[0].Header().Name
			}
			msg := []any{"%s %s %s: rcode %d, %d answers, SOA %q, flags qr=%v aa=%v ra=%v edns=%v; want rcode %d, %d answers, SOA %q",
				network, tc.name, dns.TypeToString[tc.qtype], m.Rcode, len(m.Answer), soa,
				m.Response, m.Authoritative, m.RecursionAvailable, m.IsEdns0() != nil, tc.rcode, tc.answers, tc.soa}
			assert.Equal(t, tc.rcode, m.Rcode, msg...)
			assert.Len(t, m.Answer, tc.answers, msg...)
			assert.Equal(t, tc.soa, soa, msg...)
			assert.True(t, m.Response, msg...)
			assert.True(t, m.Authoritative, msg...)
			assert.True(t, m.RecursionAvailable, msg...)
			assert.NotNil(t, m.IsEdns0(), msg...)
		}
	}
}

// TestServerTruncatesLargeUDP: without EDNS0 a reply over 512 octets is
// cut with TC set; over TCP it is whole.
func TestServerTruncatesLargeUDP(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("$ORIGIN big.test.\n")
	for i := 0; i < 40; i++ {
		b.WriteString("many TXT \"" + strings.Repeat("x", 40) + "\"\n")
	}
	srv := dnstest.Start(t, dnstest.MustParse(t, b.String()))
	udp := exchange(t, srv, "udp", "many.big.test", dns.TypeTXT, false)
	assert.True(t, udp.Truncated, "udp: tc=%v with %d answers, want tc and fewer than 40", udp.Truncated, len(udp.Answer))
	assert.Less(t, len(udp.Answer), 40, "udp: tc=%v with %d answers, want tc and fewer than 40", udp.Truncated, len(udp.Answer))
	tcp := exchange(t, srv, "tcp", "many.big.test", dns.TypeTXT, false)
	assert.False(t, tcp.Truncated, "tcp: tc=%v with %d answers, want 40", tcp.Truncated, len(tcp.Answer))
	assert.Len(t, tcp.Answer, 40, "tcp: tc=%v with %d answers, want 40", tcp.Truncated, len(tcp.Answer))
	q := srv.Queries()
	if assert.Len(t, q, 2, "Queries() = %+v", q) {
		assert.Equal(t, "udp", q[0].Net, "Queries() = %+v", q)
		assert.Equal(t, "tcp", q[1].Net, "Queries() = %+v", q)
		assert.Equal(t, uint16(0), q[0].UDPSize, "Queries() = %+v", q)
	}
}

func TestServerFormErr(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	q := new(dns.Msg)
	q.Id = dns.Id()
	c := &dns.Client{Timeout: 2 * time.Second}
	m, _, err := c.Exchange(q, srv.Addr())
	require.NoError(t, err)
	assert.Equal(t, dns.RcodeFormatError, m.Rcode, "rcode, want FORMERR")
}

// TestServerCountAndQueries: Count is case-insensitive and per type;
// Queries records name, type, network and the advertised EDNS0 size.
func TestServerCountAndQueries(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	exchange(t, srv, "udp", "HOST.dnstest.test", dns.TypeA, true)
	exchange(t, srv, "tcp", "host.dnstest.test", dns.TypeTXT, false)
	assert.Equal(t, 2, srv.Count("Host.DNStest.test.", dnstest.AnyType), "Count(any)")
	assert.Equal(t, 1, srv.Count("host.dnstest.test", resolver.TypeTXT), "Count(TXT)")
	q := srv.Queries()
	require.Len(t, q, 2, "Queries()")
	got := []dnstest.Received{q[0], q[1]}
	for i := range got {
		got[i].Time = time.Time{}
	}
	want := []dnstest.Received{
		{Name: "host.dnstest.test", Type: resolver.TypeA, Net: "udp", UDPSize: 1232},
		{Name: "host.dnstest.test", Type: resolver.TypeTXT, Net: "tcp"},
	}
	assert.Equal(t, want, got, "Queries()")
}

// TestPatientResolver: an answer that comes later than DroppedTimeout
// is still taken; a dropped question, asked by its own name and type or
// AnyType, times out; a question the server answers is never sent to
// the short Client because another type of its name is dropped.
func TestPatientResolver(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	srv.SetFault("host.dnstest.test", resolver.TypeA, dnstest.Delay(2*dnstest.DroppedTimeout))
	srv.SetFault("host.dnstest.test", resolver.TypeTXT, dnstest.Drop)
	srv.SetFault("a.b.c.dnstest.test", dnstest.AnyType, dnstest.Drop)
	r := srv.PatientResolver()
	a := r.Lookup(t.Context(), "HOST.dnstest.test", resolver.TypeA)
	assert.Equal(t, resolver.Found, a.Outcome, "a late answer: %+v", a)
	for _, q := range []struct {
		name  string
		qtype resolver.Type
	}{{"host.dnstest.test", resolver.TypeTXT}, {"a.b.c.dnstest.test.", resolver.TypeTXT}} {
		a := r.Lookup(t.Context(), q.name, q.qtype)
		assert.Equal(t, resolver.ReasonTimeout, a.Reason, "%s %v dropped: %+v", q.name, q.qtype, a)
	}
}

// TestOnceAsked: f runs once a question for the name comes, not for a
// question about another name.
func TestOnceAsked(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	called := make(chan struct{})
	srv.OnceAsked("host.dnstest.test", dnstest.AnyType, func() { close(called) })
	exchange(t, srv, "udp", "alias.dnstest.test", dns.TypeTXT, false)
	select {
	case <-called:
		t.Fatal("called after a question about another name")
	default:
	}
	exchange(t, srv, "udp", "HOST.dnstest.test", dns.TypeA, false)
	select {
	case <-called:
	case <-time.After(dnstest.PatientTimeout): // a bound on a hang
		t.Fatal("not called once the name was asked")
	}
}

// TestResolverFaults: the in-memory faults behave as documented.
func TestResolverFaults(t *testing.T) {
	t.Parallel()
	z := testZones(t)
	const name = "host.dnstest.test"
	fail := resolver.Fail
	tests := []struct {
		name  string
		fname string
		ftype resolver.Type
		fault dnstest.Fault
		qname string
		qtype resolver.Type
		want  resolver.Answer
	}{
		{"servfail", name, dnstest.AnyType, dnstest.ServFail, name, resolver.TypeA,
			resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail, Rcode: dns.RcodeServerFailure}},
		{"refused", name, dnstest.AnyType, dnstest.Refused, name, resolver.TypeA,
			resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonRefused, Rcode: dns.RcodeRefused}},
		{"drop", name, dnstest.AnyType, dnstest.Drop, name, resolver.TypeA, fail(resolver.ReasonTimeout)},
		{"garbage", name, dnstest.AnyType, dnstest.Garbage, name, resolver.TypeA, fail(resolver.ReasonMalformed)},
		{"truncate-is-normal", name, dnstest.AnyType, dnstest.Truncate, name, resolver.TypeTXT,
			resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: resolver.TypeTXT, TTL: 300, TXT: []string{"text"}}}}},
		{"other-type-unaffected", name, resolver.TypeMX, dnstest.ServFail, name, resolver.TypeTXT,
			resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: resolver.TypeTXT, TTL: 300, TXT: []string{"text"}}}}},
		{"via-cname", name, dnstest.AnyType, dnstest.Drop, "alias.dnstest.test", resolver.TypeA, fail(resolver.ReasonTimeout)},
		{"case-insensitive", "HOST.dnstest.test.", resolver.TypeA, dnstest.Garbage, "host.DNSTEST.test", resolver.TypeA, fail(resolver.ReasonMalformed)},
		{"precedence-drop-over-rcode", name, dnstest.AnyType, dnstest.Fault{Drop: true, Rcode: dns.RcodeRefused}, name, resolver.TypeA, fail(resolver.ReasonTimeout)},
		{"precedence-rcode-over-garbage", name, dnstest.AnyType, dnstest.Fault{Garbage: true, Rcode: dns.RcodeRefused}, name, resolver.TypeA,
			resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonRefused, Rcode: dns.RcodeRefused}},
		{"cleared", name, dnstest.AnyType, dnstest.Fault{}, name, resolver.TypeTXT,
			resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: resolver.TypeTXT, TTL: 300, TXT: []string{"text"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			if tc.name == "cleared" {
				r.SetFault(tc.fname, tc.ftype, dnstest.ServFail)
			}
			r.SetFault(tc.fname, tc.ftype, tc.fault)
			start := time.Now()
			got := r.Lookup(t.Context(), tc.qname, tc.qtype)
			assert.Equal(t, tc.want, got)
			elapsed := time.Since(start)
			assert.LessOrEqual(t, elapsed, time.Second, "took %v: the in-memory resolver must not wait", elapsed)
		})
	}
}

func TestResolverDelay(t *testing.T) {
	t.Parallel()
	z := testZones(t)
	const name = "host.dnstest.test"
	r := dnstest.NewResolver(z)
	r.SetFault(name, dnstest.AnyType, dnstest.Delay(100*time.Millisecond))
	r.SetFault(name, resolver.TypeA, dnstest.Delay(50*time.Millisecond))
	start := time.Now()
	got := r.Lookup(t.Context(), name, resolver.TypeA)
	assert.Equal(t, resolver.Found, got.Outcome, "got %+v", got)
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 150*time.Millisecond, "took %v, want the delays added up (150ms)", elapsed)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	r.SetFault(name, dnstest.AnyType, dnstest.Delay(time.Minute))
	got = r.Lookup(ctx, name, resolver.TypeTXT)
	assert.Equal(t, resolver.ReasonCanceled, got.Reason, "delayed past the deadline: %+v", got)
}

func TestResolverLog(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(testZones(t))
	r.Lookup(t.Context(), "Host.dnstest.test.", resolver.TypeA)
	r.Lookup(t.Context(), "host.dnstest.test", resolver.TypeTXT)
	r.Lookup(t.Context(), "bad..name", resolver.TypeTXT)
	assert.Equal(t, 2, r.Count("host.dnstest.test", dnstest.AnyType), "Count")
	q := r.Queries()
	if assert.Len(t, q, 2, "Queries() = %+v", q) {
		assert.Equal(t, "mem", q[0].Net, "Queries() = %+v", q)
		assert.Equal(t, "host.dnstest.test", q[0].Name, "Queries() = %+v", q)
		assert.Equal(t, resolver.TypeTXT, q[1].Type, "Queries() = %+v", q)
	}
	got := r.Lookup(t.Context(), "bad..name", resolver.TypeA)
	assert.Equal(t, resolver.ReasonInvalidName, got.Reason, "invalid name: %+v", got)
}

func TestZones(t *testing.T) {
	t.Parallel()
	z := testZones(t)
	names := z.Names()
	want := []string{"*.wild.dnstest.test", "a.b.c.dnstest.test", "alias.dnstest.test", "dnstest.test", "host.dnstest.test", "name.nosoa.test"}
	assert.Equal(t, want, names, "Names()")
	recs := z.Records("HOST.dnstest.test.")
	if assert.Len(t, recs, 2, "Records() = %q", recs) {
		assert.Contains(t, recs[0], "192.0.2.1", "Records() = %q", recs)
		assert.Contains(t, recs[1], `"text"`, "Records() = %q", recs)
	}
	assert.Nil(t, z.Records("missing.test"), "Records of a missing name is not nil")
}

func TestZoneErrors(t *testing.T) {
	t.Parallel()
	bad := []struct{ name, text, origin string }{
		{"syntax", "$ORIGIN x.test.\nhost A not-an-address\n", ""},
		{"include", "$INCLUDE /etc/hosts\n", "x.test"},
		{"relative-without-origin", "host A 192.0.2.1\n", ""},
	}
	for _, tc := range bad {
		_, err := dnstest.Parse(tc.text, tc.origin)
		assert.Error(t, err, "%s: no error", tc.name)
	}
	z, err := dnstest.Parse("host A 192.0.2.1\n", "x.test")
	if assert.NoError(t, err, "origin argument") {
		assert.Equal(t, []string{"host.x.test"}, z.Names(), "origin argument: %v", z)
	}
	_, err = dnstest.Load("testdata/does-not-exist.zone")
	assert.Error(t, err, "Load of a missing file: no error")
}

func TestLoad(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "../testdata/resolver.zone")
	r := dnstest.NewResolver(z)
	got := r.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.Found, got.Outcome, "got %+v", got)
	assert.Len(t, got.Records, 2, "got %+v", got)
}

// TestServerClient: the convenience Client asks this server only, once,
// with the given timeout.
func TestServerClient(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, testZones(t))
	c := srv.Client(150 * time.Millisecond)
	assert.Equal(t, []string{srv.Addr()}, c.Servers, "Client = %+v", c)
	assert.Equal(t, 1, c.Attempts, "Client = %+v", c)
	assert.Equal(t, 150*time.Millisecond, c.Timeout, "Client = %+v", c)
	assert.True(t, strings.HasPrefix(srv.Addr(), "127.0.0.1:"), "Addr() = %q, want loopback", srv.Addr())
}

// TestNoGoroutineLeak: servers started and closed, with TCP connections
// and a held-back reply in flight, leave no goroutine behind. Not
// parallel, so nothing else runs meanwhile.
func TestNoGoroutineLeak(t *testing.T) {
	baseline := runtime.NumGoroutine()
	z := testZones(t)
	for i := 0; i < 5; i++ {
		srv, err := dnstest.Listen(z)
		require.NoError(t, err)
		srv.SetFault("alias.dnstest.test", dnstest.AnyType, dnstest.Delay(time.Minute))
		exchange(t, srv, "udp", "host.dnstest.test", dns.TypeA, true)
		exchange(t, srv, "tcp", "host.dnstest.test", dns.TypeA, true)
		c := srv.Client(50 * time.Millisecond)
		c.Lookup(t.Context(), "alias.dnstest.test", resolver.TypeA)
		srv.Close()
		srv.Close() // idempotent
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			require.FailNow(t, "goroutines above the baseline", "goroutines: %d, baseline %d\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSignedZones: a zone whose apex has a DNSKEY is answered with the AD
// bit, over the wire and in memory, for data, NODATA and NXDOMAIN alike;
// an alias chain is validated only when every name on it is signed; a
// sub-zone with its own SOA and no DNSKEY is not.
func TestSignedZones(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `
$ORIGIN signed.test.
@        SOA  ns hostmaster 1 3600 600 86400 300
@        DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==
host     A    192.0.2.1
out      CNAME host.plain.test.
in       CNAME host
$ORIGIN sub.signed.test.
@        SOA  ns hostmaster 1 3600 600 86400 300
host     A    192.0.2.3
$ORIGIN plain.test.
@        SOA  ns hostmaster 1 3600 600 86400 300
host     A    192.0.2.2
`)
	srv := dnstest.Start(t, z)
	for name, r := range map[string]resolver.Resolver{"server": srv.Client(0), "memory": dnstest.NewResolver(z)} {
		for _, tc := range []struct {
			name    string
			qtype   resolver.Type
			outcome resolver.Outcome
			ad      bool
		}{
			{"host.signed.test", resolver.TypeA, resolver.Found, true},
			{"host.signed.test", resolver.TypeTXT, resolver.NoData, true},
			{"gone.signed.test", resolver.TypeA, resolver.NXDomain, true},
			{"in.signed.test", resolver.TypeA, resolver.Found, true},
			{"out.signed.test", resolver.TypeA, resolver.Found, false},
			{"host.sub.signed.test", resolver.TypeA, resolver.Found, false},
			{"host.plain.test", resolver.TypeA, resolver.Found, false},
		} {
			a := r.Lookup(context.Background(), tc.name, tc.qtype)
			assert.Equal(t, tc.outcome, a.Outcome, "%s: %s %s", name, tc.name, tc.qtype)
			assert.Equal(t, tc.ad, a.Authentic, "%s: %s %s: AD", name, tc.name, tc.qtype)
		}
	}
}
