package resolver_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"path/filepath"
	"slices"
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

func TestReasonSide(t *testing.T) {
	t.Parallel()
	want := map[resolver.Reason]resolver.Side{
		resolver.ReasonNone:                 resolver.SideUnknown,
		resolver.ReasonServFail:             resolver.SideUnknown,
		resolver.ReasonRefused:              resolver.SideUnknown,
		resolver.ReasonTimeout:              resolver.SideUnknown,
		resolver.ReasonRcode:                resolver.SideNone,
		resolver.ReasonTruncated:            resolver.SideNone,
		resolver.ReasonBudgetExhausted:      resolver.SideNone,
		resolver.ReasonCanceled:             resolver.SideNone,
		resolver.ReasonMalformed:            resolver.SideNone,
		resolver.ReasonInvalidName:          resolver.SideNone,
		resolver.ReasonSlow:                 resolver.SideNone,
		resolver.ReasonDNSSEC:               resolver.SideDomain,
		resolver.ReasonNoReachableAuthority: resolver.SideDomain,
		resolver.ReasonCNAMELoop:            resolver.SideDomain,
		resolver.ReasonCNAMEChain:           resolver.SideDomain,
		resolver.ReasonNetwork:              resolver.SideService,
		resolver.ReasonResolverPolicy:       resolver.SideService,
		resolver.Reason("made-up"):          resolver.SideUnknown,
	}
	for r, side := range want {
		assert.Equal(t, side, r.Side(), "reason %q", r)
	}
	assert.Equal(t, "domain", resolver.SideDomain.String())
	assert.Equal(t, "service", resolver.SideService.String())
	assert.Equal(t, "unknown", resolver.SideUnknown.String())
	assert.Equal(t, "none", resolver.SideNone.String())
}

// TestReasonTransport: the reasons that mean the resolver gave no usable
// DNS answer at all, and no other.
func TestReasonTransport(t *testing.T) {
	t.Parallel()
	transport := []resolver.Reason{resolver.ReasonTimeout, resolver.ReasonNetwork, resolver.ReasonRefused, resolver.ReasonCanceled}
	for _, r := range append(resolver.Reasons(), resolver.ReasonNone, resolver.Reason("made-up")) {
		assert.Equal(t, slices.Contains(transport, r), r.Transport(), "reason %q", r)
	}
}

// TestReasonsComplete reads the package's source: every constant of type
// Reason but ReasonNone is in Reasons, once, with a Side of its own row
// (a Reason added without a row would be "unknown" to the metrics and
// to the attribution).
func TestReasonsComplete(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var declared []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Reason" {
					for _, n := range vs.Names {
						declared = append(declared, n.Name)
					}
				}
			}
		}
	}
	require.NotEmpty(t, declared)
	byName := map[string]resolver.Reason{}
	for _, r := range resolver.Reasons() {
		_, dup := byName[string(r)]
		assert.False(t, dup, "%q listed twice", r)
		byName[string(r)] = r
	}
	assert.Len(t, resolver.Reasons(), len(declared)-1, "every Reason constant but ReasonNone is in Reasons(): declared %v", declared)
	assert.NotContains(t, resolver.Reasons(), resolver.ReasonNone)
	for _, r := range resolver.Reasons() {
		assert.NotEmpty(t, r)
		assert.Contains(t, []resolver.Side{resolver.SideDomain, resolver.SideService, resolver.SideUnknown, resolver.SideNone}, r.Side(), "%q", r)
	}
}

// TestAttribution: every attribution of an error reply, with Extended DNS
// Errors (RFC 8914) and the CD-bit test, over the wire and in memory.
func TestAttribution(t *testing.T) {
	t.Parallel()
	z := zones(t)
	const name = "a.resolver.test"
	type tc struct {
		name   string
		qname  string
		fault  dnstest.Fault
		want   resolver.Answer
		side   resolver.Side
		cdAsks int // queries with CD the server must see
		asks   int // queries without CD the server must see (an error reply is asked once more before it counts)
	}
	fail := func(r resolver.Reason, rcode int, ede uint16) resolver.Answer {
		a := inconclusive(r, rcode)
		a.EDE = ede
		return a
	}
	tests := []tc{
		{"servfail-plain", name, dnstest.ServFail, fail(resolver.ReasonServFail, dns.RcodeServerFailure, 0), resolver.SideUnknown, 2, 2},
		{"bogus-by-cd-test", name, dnstest.Bogus, fail(resolver.ReasonDNSSEC, dns.RcodeServerFailure, 0), resolver.SideDomain, 1, 4},
		{"servfail-ede1-unknown-meaning", name, dnstest.ServFail.WithEDE(1), fail(resolver.ReasonServFail, dns.RcodeServerFailure, 1), resolver.SideUnknown, 2, 2},
		{"ede22-no-reachable-authority", name, dnstest.ServFail.WithEDE(22), fail(resolver.ReasonNoReachableAuthority, dns.RcodeServerFailure, 22), resolver.SideDomain, 0, 2},
		{"ede23-network-error", name, dnstest.ServFail.WithEDE(23), fail(resolver.ReasonNoReachableAuthority, dns.RcodeServerFailure, 23), resolver.SideDomain, 0, 2},
		{"ede14-not-ready", name, dnstest.ServFail.WithEDE(14), fail(resolver.ReasonResolverPolicy, dns.RcodeServerFailure, 14), resolver.SideService, 0, 2},
		{"ede18-prohibited", name, dnstest.Refused.WithEDE(18), fail(resolver.ReasonResolverPolicy, dns.RcodeRefused, 18), resolver.SideService, 0, 2},
		{"refused-plain", name, dnstest.Refused, fail(resolver.ReasonRefused, dns.RcodeRefused, 0), resolver.SideUnknown, 0, 2},
		{"ede15-blocked-nxdomain", "missing.resolver.test", dnstest.Fault{EDE: 15}, fail(resolver.ReasonResolverPolicy, dns.RcodeNameError, 15), resolver.SideService, 0, 2},
		{"ede17-filtered-answer", name, dnstest.Fault{EDE: 17}, fail(resolver.ReasonResolverPolicy, dns.RcodeSuccess, 17), resolver.SideService, 0, 2},
	}
	for code := uint16(6); code <= 12; code++ {
		tests = append(tests, tc{fmt.Sprintf("ede%d-dnssec", code), name, dnstest.ServFail.WithEDE(code), fail(resolver.ReasonDNSSEC, dns.RcodeServerFailure, code), resolver.SideDomain, 0, 2})
		tests = append(tests, tc{fmt.Sprintf("ede%d-bogus-no-cd-needed", code), name, dnstest.Bogus.WithEDE(code), fail(resolver.ReasonDNSSEC, dns.RcodeServerFailure, code), resolver.SideDomain, 0, 2})
	}
	stale := found(rrA(name, "192.0.2.1"), rrA(name, "192.0.2.2"))
	stale.EDE = 3
	tests = append(tests, tc{"ede3-stale-answer-kept", name, dnstest.Fault{EDE: 3}, stale, resolver.SideUnknown, 0, 1})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.SetFault(tc.qname, dnstest.AnyType, tc.fault)
			got := srv.Client(faultTimeout).Lookup(t.Context(), tc.qname, resolver.TypeA)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.side, got.Reason.Side())
			assert.Equal(t, tc.cdAsks, srv.CountCD(tc.qname, resolver.TypeA), "questions asked with CD")
			assert.Equal(t, tc.asks, srv.Count(tc.qname, resolver.TypeA), "questions asked without CD")
			mem := dnstest.NewResolver(z)
			mem.SetFault(tc.qname, dnstest.AnyType, tc.fault)
			assert.Equal(t, got, mem.Lookup(t.Context(), tc.qname, resolver.TypeA), "the in-memory resolver (actual) and the client (expected)")
		})
	}
}

// TestCDTestTransient: a SERVFAIL that heals by the time the CD test asks
// again is no DNSSEC failure: the answer then is taken.
func TestCDTestTransient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	plain := 0
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		if !q.CheckingDisabled {
			plain++
		}
		first := plain == 1 && !q.CheckingDisabled
		mu.Unlock()
		if first {
			m := new(dns.Msg)
			m.SetRcode(q, dns.RcodeServerFailure)
			s.send(t, m, from)
			return
		}
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: faultTimeout, Attempts: 1}
	a := c.Lookup(t.Context(), "flaky.example.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, plain)
}

// TestAttributionCNAME: a loop and an over-long chain are the domain's.
func TestAttributionCNAME(t *testing.T) {
	t.Parallel()
	c := client(dnstest.Start(t, zones(t)))
	loop := c.Lookup(t.Context(), "loop1.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.ReasonCNAMELoop, loop.Reason)
	assert.Equal(t, resolver.SideDomain, loop.Reason.Side())
	chain := c.Lookup(t.Context(), "chainover.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.ReasonCNAMEChain, chain.Reason)
	assert.Equal(t, resolver.SideDomain, chain.Reason.Side())
}

// TestAttributionSlow: a question the resolver leaves unanswered until
// the deadline while it answers others is ReasonSlow (slowness, nobody's
// fault); with nothing answered at all it is ReasonTimeout (undetermined:
// the control question tells).
func TestAttributionSlow(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("nodata.resolver.test", dnstest.AnyType, dnstest.Drop)
	c := &resolver.Client{Servers: []string{srv.Addr()}, Timeout: 100 * time.Millisecond}
	// The deadlines pass when the test says (a deadline by the clock
	// may pass before the question is out, or before the other answer
	// is in); the far one only bounds a hang.
	far, cancelFar := context.WithTimeout(t.Context(), time.Hour)
	defer cancelFar()

	ctx := testlab.NewDeadline(far)
	done := make(chan resolver.Answer, 1)
	go func() { done <- c.Lookup(ctx, "nodata.resolver.test", resolver.TypeA) }()
	waitFor(t, func() bool { return srv.Count("nodata.resolver.test", resolver.TypeA) >= 1 })
	other := c.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
	require.Equal(t, resolver.Found, other.Outcome, show(other))
	waitFor(t, func() bool { return srv.Count("nodata.resolver.test", resolver.TypeA) >= 2 })
	ctx.Pass()
	slow := <-done
	assert.Equal(t, inconclusive(resolver.ReasonSlow, -1), slow)
	assert.Equal(t, resolver.SideNone, slow.Reason.Side())
	assert.Greater(t, srv.Count("nodata.resolver.test", resolver.TypeA), 1, "asked again until the deadline")

	lone := &resolver.Client{Servers: []string{srv.Addr()}, Timeout: 100 * time.Millisecond}
	ctx2 := testlab.NewDeadline(far)
	srv.OnceAsked("nodata.resolver.test", resolver.TypeA, ctx2.Pass)
	timeout := lone.Lookup(ctx2, "nodata.resolver.test", resolver.TypeA)
	assert.Equal(t, inconclusive(resolver.ReasonTimeout, -1), timeout)
	assert.Equal(t, resolver.SideUnknown, timeout.Reason.Side())
}

// TestAttributionUnreachable: a resolver nobody listens on is the
// service's fault.
func TestAttributionUnreachable(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	free := pc.LocalAddr().String()
	require.NoError(t, pc.Close())
	c := &resolver.Client{Servers: []string{free}}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	a := c.Lookup(ctx, "a.example.test", resolver.TypeA)
	assert.Equal(t, resolver.ReasonNetwork, a.Reason, show(a))
	assert.Equal(t, resolver.SideService, a.Reason.Side())
}

// TestNewFieldsPassThrough: the Cache and the Scan hand EDE and the AD
// bit on untouched.
func TestNewFieldsPassThrough(t *testing.T) {
	t.Parallel()
	answers := map[string]resolver.Answer{
		"bogus.test": {Outcome: resolver.Inconclusive, Reason: resolver.ReasonDNSSEC, Rcode: dns.RcodeServerFailure, EDE: 6},
		"signed.test": {Outcome: resolver.Found, Authentic: true, EDE: 3,
			Records: []resolver.Record{{Name: "signed.test", Type: resolver.TypeA, TTL: 60, Addr: addr("192.0.2.1")}}},
	}
	below := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer { return answers[name] })
	scan := resolver.NewScan(resolver.NewCache(below, 0), 0)
	for round := 0; round < 2; round++ {
		for name, want := range answers {
			assert.Equal(t, want, scan.Lookup(t.Context(), name, resolver.TypeA))
		}
	}
}

// TestScanKeepsDeadlineReason: through a Scan, a lookup the deadline
// ended reports why (here ReasonTimeout), not ReasonCanceled, although
// the caller's context has ended by the time the answer is in.
func TestScanKeepsDeadlineReason(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("nodata.resolver.test", dnstest.AnyType, dnstest.Drop)
	far, cancelFar := context.WithTimeout(t.Context(), time.Hour)
	defer cancelFar()
	for i := 0; i < 5; i++ {
		c := &resolver.Client{Servers: []string{srv.Addr()}, Timeout: 100 * time.Millisecond}
		// The deadline passes once the question is out: by the clock it
		// may pass before, and the lookup is then canceled, rightly.
		ctx := testlab.NewDeadline(far)
		srv.OnceAsked("nodata.resolver.test", resolver.TypeA, ctx.Pass)
		a := resolver.NewScan(c, 0).Lookup(ctx, "nodata.resolver.test", resolver.TypeA)
		assert.Equal(t, inconclusive(resolver.ReasonTimeout, -1), a)
	}
}

// TestAttributionHiddenChain: a recursive resolver that meets a CNAME
// loop or a chain longer than it follows answers SERVFAIL and shows no
// part of the chain (Unbound 1.17); the client asks the chain's links as
// CNAME questions and names the cause. A SERVFAIL that the chain does
// not explain stays a SERVFAIL.
func TestAttributionHiddenChain(t *testing.T) {
	t.Parallel()
	// links maps a name to its alias target; "end" answers A.
	links := map[string]string{
		"loop-a.test.": "loop-b.test.", "loop-b.test.": "loop-c.test.", "loop-c.test.": "loop-a.test.",
		"short.test.": "lame.test.",
	}
	for i := range 12 {
		links[fmt.Sprintf("long%d.test.", i)] = fmt.Sprintf("long%d.test.", i+1)
	}
	for i := range resolver.MaxCNAMEChain + 1 {
		links[fmt.Sprintf("huge%d.test.", i)] = fmt.Sprintf("huge%d.test.", i+1)
	}
	var mu sync.Mutex
	asked := map[string]int{}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		qn, qt := strings.ToLower(q.Question[0].Name), q.Question[0].Qtype
		mu.Lock()
		asked[dns.TypeToString[qt]]++
		mu.Unlock()
		m := new(dns.Msg)
		m.SetReply(q)
		switch target, alias := links[qn]; {
		case qt == dns.TypeCNAME && alias:
			m.Answer = []dns.RR{&dns.CNAME{Hdr: dns.RR_Header{Name: qn, Rrtype: dns.TypeCNAME, Class: dns.ClassINET, Ttl: 60}, Target: target}}
		case qt == dns.TypeCNAME:
			// no alias here: NODATA
		case qn == "long12.test." || qn == "huge17.test.":
			m = answerA(q, "192.0.2.1") // the chain's end answers directly
		default:
			m.Rcode = dns.RcodeServerFailure // the resolver gave up
		}
		s.send(t, m, from)
	})
	c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: faultTimeout, Attempts: 1}
	for _, tc := range []struct {
		name string
		want resolver.Reason
	}{
		{"loop-a.test", resolver.ReasonCNAMELoop},
		{"long0.test", resolver.ReasonCNAMEChain}, // 12 links: the resolver gave up, the end answers
		{"huge0.test", resolver.ReasonCNAMEChain}, // past MaxCNAMEChain: not followed to the end
		{"short.test", resolver.ReasonServFail},   // one link to a name that fails too
		{"plain.test", resolver.ReasonServFail},   // no alias at all
		{"long11.test", resolver.ReasonServFail},  // one link whose end answers: not the chain's length
	} {
		a := c.Lookup(t.Context(), tc.name, resolver.TypeA)
		require.Equal(t, resolver.Inconclusive, a.Outcome, "%s: %s", tc.name, show(a))
		assert.Equal(t, tc.want, a.Reason, tc.name)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.LessOrEqual(t, asked["CNAME"], 3+13+resolver.MaxCNAMEChain+1+2+1+2, "CNAME questions: at most one per link")
}
