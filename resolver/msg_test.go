package resolver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

func hdr(name string, t uint16) dns.RR_Header {
	return dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: 60}
}

func cname(from, to string) dns.RR { return &dns.CNAME{Hdr: hdr(from, dns.TypeCNAME), Target: to} }

func soa(zone string) dns.RR {
	return &dns.SOA{Hdr: hdr(zone, dns.TypeSOA), Ns: "ns." + zone, Mbox: "h." + zone}
}

// wire packs m and unpacks it again, as a Client receives it.
func wire(t testing.TB, m *dns.Msg) *dns.Msg {
	t.Helper()
	b, err := m.Pack()
	require.NoError(t, err)
	out := new(dns.Msg)
	require.NoError(t, out.Unpack(b))
	return out
}

func TestFromMsg(t *testing.T) {
	t.Parallel()
	a1 := &dns.A{Hdr: hdr("b.test.", dns.TypeA), A: addr("192.0.2.1").AsSlice()}
	recB := resolver.Record{Name: "b.test", Type: resolver.TypeA, TTL: 60, Addr: addr("192.0.2.1")}
	tests := []struct {
		name     string
		msg      *dns.Msg
		want     resolver.Answer
		wantNext string
	}{
		{"nil", nil, inconclusive(resolver.ReasonMalformed, -1), ""},
		{"chain-in-reply", &dns.Msg{Answer: []dns.RR{cname("a.test.", "B.test."), a1}},
			withCNAMEs(found(recB), "b.test"), ""},
		{"stops-at-alias", &dns.Msg{Answer: []dns.RR{cname("a.test.", "b.test.")}},
			noData("b.test"), "b.test"},
		{"alias-then-nodata", &dns.Msg{Answer: []dns.RR{cname("a.test.", "b.test.")}, Ns: []dns.RR{soa("test.")}},
			noData("b.test"), ""},
		{"alias-then-nxdomain", &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeNameError}, Answer: []dns.RR{cname("a.test.", "b.test.")}},
			nxDomain("b.test"), ""},
		{"loop", &dns.Msg{Answer: []dns.RR{cname("a.test.", "b.test."), cname("b.test.", "a.test.")}},
			inconclusive(resolver.ReasonCNAMELoop, 0, "b.test"), ""},
		{"other-class-ignored", &dns.Msg{Answer: []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: "a.test.", Rrtype: dns.TypeA, Class: dns.ClassCHAOS}, A: addr("192.0.2.1").AsSlice()}}},
			noData(), ""},
		{"other-owner-ignored", &dns.Msg{Answer: []dns.RR{a1}}, noData(), ""},
		{"servfail", &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeServerFailure}}, inconclusive(resolver.ReasonServFail, 2), ""},
		{"refused", &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeRefused}}, inconclusive(resolver.ReasonRefused, 5), ""},
		{"formerr", &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeFormatError}}, inconclusive(resolver.ReasonRcode, 1), ""},
		{"records-despite-servfail", &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeServerFailure}, Answer: []dns.RR{cname("a.test.", "b.test.")}},
			inconclusive(resolver.ReasonServFail, 2, "b.test"), ""},
		{"authentic", &dns.Msg{MsgHdr: dns.MsgHdr{AuthenticatedData: true}, Ns: []dns.RR{soa("test.")}},
			resolver.Answer{Outcome: resolver.NoData, Authentic: true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, next := resolver.FromMsg("A.test.", resolver.TypeA, tc.msg)
			assert.Equal(t, tc.want, got, "answer mismatch")
			assert.Equal(t, tc.wantNext, next, "next")
		})
	}
}

// TestFromMsgChainBound: eight aliases in one reply are followed, nine
// are not.
func TestFromMsgChainBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{resolver.MaxCNAMEChain, resolver.MaxCNAMEChain + 1} {
		m := new(dns.Msg)
		var names []string
		for i := 0; i < n; i++ {
			m.Answer = append(m.Answer, cname(fmt.Sprintf("n%d.test.", i), fmt.Sprintf("n%d.test.", i+1)))
			names = append(names, fmt.Sprintf("n%d.test", i+1))
		}
		last := fmt.Sprintf("n%d.test.", n)
		m.Answer = append(m.Answer, &dns.A{Hdr: hdr(last, dns.TypeA), A: addr("192.0.2.1").AsSlice()})
		got, _ := resolver.FromMsg("n0.test", resolver.TypeA, wire(t, m))
		if n <= resolver.MaxCNAMEChain {
			assert.Equal(t, withCNAMEs(found(resolver.Record{Name: resolver.CanonicalName(last), Type: resolver.TypeA, TTL: 60, Addr: addr("192.0.2.1")}), names...), got, "answer mismatch")
		} else {
			assert.Equal(t, inconclusive(resolver.ReasonCNAMEChain, 0, names[:resolver.MaxCNAMEChain]...), got, "answer mismatch")
		}
	}
}

// TestFromMsgTXTBytes: every octet value survives the wire and the
// presentation escapes of miekg/dns: TXT strings come back as raw bytes.
func TestFromMsgTXTBytes(t *testing.T) {
	t.Parallel()
	var raw []string
	for start := 0; start < 256; start += 64 {
		var b strings.Builder
		for c := start; c < start+64; c++ {
			b.WriteByte(byte(c))
		}
		raw = append(raw, b.String())
	}
	raw = append(raw, `\065`, `"`, `\`, "")
	escaped := make([]string, len(raw))
	for i, s := range raw {
		var b strings.Builder
		for j := 0; j < len(s); j++ {
			fmt.Fprintf(&b, `\%03d`, s[j])
		}
		escaped[i] = b.String()
	}
	m := &dns.Msg{Answer: []dns.RR{
		&dns.TXT{Hdr: hdr("t.test.", dns.TypeTXT), Txt: escaped},
	}}
	got, _ := resolver.FromMsg("t.test", resolver.TypeTXT, wire(t, m))
	assert.Equal(t, found(resolver.Record{Name: "t.test", Type: resolver.TypeTXT, TTL: 60, TXT: raw}), got, "answer mismatch")
}

// TestFromMsgCAARaw: a CAA value keeps its octets, backslashes included,
// and the tag is unescaped.
func TestFromMsgCAARaw(t *testing.T) {
	t.Parallel()
	m := &dns.Msg{Answer: []dns.RR{
		&dns.CAA{Hdr: hdr("c.test.", dns.TypeCAA), Flag: 128, Tag: "issue", Value: `ca.test; a=b\\c "q"`},
	}}
	got, _ := resolver.FromMsg("c.test", resolver.TypeCAA, wire(t, m))
	want := found(resolver.Record{Name: "c.test", Type: resolver.TypeCAA, TTL: 60, CAAFlags: 128, CAATag: "issue", CAAValue: `ca.test; a=b\c "q"`})
	assert.Equal(t, want, got, "answer mismatch")
}

// FuzzFromMsg feeds FromMsg whatever miekg/dns makes of arbitrary bytes,
// including partly unpacked messages, and checks the Answer is well
// formed.
func FuzzFromMsg(f *testing.F) {
	seeds := []*dns.Msg{
		{Answer: []dns.RR{cname("a.test.", "b.test."), &dns.A{Hdr: hdr("b.test.", dns.TypeA), A: addr("192.0.2.1").AsSlice()}}},
		{Answer: []dns.RR{cname("a.test.", "b.test."), cname("b.test.", "a.test.")}},
		{Answer: []dns.RR{&dns.TXT{Hdr: hdr("a.test.", dns.TypeTXT), Txt: []string{`a\"b`, `\000\255`}}}},
		{Answer: []dns.RR{&dns.CAA{Hdr: hdr("a.test.", dns.TypeCAA), Tag: "issue", Value: "x"}}},
		{Answer: []dns.RR{&dns.MX{Hdr: hdr("a.test.", dns.TypeMX), Mx: "."}}},
		{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeNameError}, Ns: []dns.RR{soa("test.")}},
	}
	for _, m := range seeds {
		m.SetQuestion("a.test.", dns.TypeA)
		b, err := m.Pack()
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte{0xde, 0xad})
	types := []resolver.Type{resolver.TypeA, resolver.TypeAAAA, resolver.TypeTXT, resolver.TypeMX, resolver.TypeCAA, resolver.TypePTR, resolver.TypeCNAME}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := new(dns.Msg)
		_ = m.Unpack(data) // a partly unpacked message must be safe too
		qname := "a.test"
		if len(m.Question) > 0 {
			qname = m.Question[0].Name
		}
		for _, qt := range types {
			a, next := resolver.FromMsg(qname, qt, m)
			checkWellFormed(t, a, next)
		}
	})
}

func checkWellFormed(t *testing.T, a resolver.Answer, next string) {
	t.Helper()
	switch a.Outcome {
	case resolver.Found:
		require.NotEmpty(t, a.Records, "found: %s", show(a))
		require.Empty(t, a.Reason, "found: %s", show(a))
	case resolver.NoData, resolver.NXDomain:
		require.Empty(t, a.Records, "negative: %s", show(a))
		require.Empty(t, a.Reason, "negative: %s", show(a))
	case resolver.Inconclusive:
		require.Empty(t, a.Records, "inconclusive: %s", show(a))
		require.NotEmpty(t, a.Reason, "inconclusive: %s", show(a))
	default:
		require.FailNow(t, "unknown outcome", "outcome %q", a.Outcome)
	}
	if next != "" {
		require.Equal(t, resolver.NoData, a.Outcome, "next %q with %s", next, show(a))
	}
	require.LessOrEqual(t, len(a.CNAMEs), resolver.MaxCNAMEChain, "%d aliases", len(a.CNAMEs))
	for _, r := range a.Records {
		require.False(t, hasUpper(r.Name), "name not lower-case: %+v", r)
		require.False(t, hasUpper(r.Target), "name not lower-case: %+v", r)
	}
}

func hasUpper(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0
}
