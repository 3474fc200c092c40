package resolver

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
)

// refFromMsg is the reference form of FromMsg: the names seen in a map,
// each record decoded into a local Record and appended. FromMsg decodes
// in place to keep its frames small; it must say exactly what this says.
func refFromMsg(qname string, qtype Type, m *dns.Msg) (a Answer, next string) {
	if m == nil {
		return Fail(ReasonMalformed), ""
	}
	a = Answer{Rcode: m.Rcode, Authentic: m.AuthenticatedData, EDE: edeOf(m)}
	if edeOverrides(a.EDE) {
		return failWith(a, edeReason(a.EDE)), ""
	}
	name := CanonicalName(qname)
	seen := map[string]bool{name: true}
	for {
		recs, target := refRecordsAt(m.Answer, name, qtype)
		if len(recs) > 0 {
			a.Outcome, a.Records = Found, recs
			return a, ""
		}
		if target == "" {
			break
		}
		if seen[target] {
			return failWith(a, ReasonCNAMELoop), ""
		}
		if len(a.CNAMEs) >= MaxCNAMEChain {
			return failWith(a, ReasonCNAMEChain), ""
		}
		seen[target] = true
		a.CNAMEs = append(a.CNAMEs, target)
		name = target
		if !ownerPresent(m.Answer, name) && m.Rcode == dns.RcodeSuccess && !hasSOA(m.Ns) {
			a.Outcome = NoData
			return a, name
		}
	}
	switch m.Rcode {
	case dns.RcodeSuccess:
		a.Outcome = NoData
	case dns.RcodeNameError:
		a.Outcome = NXDomain
	case dns.RcodeServerFailure:
		return failWith(a, errorReason(a.EDE, ReasonServFail)), ""
	case dns.RcodeRefused:
		return failWith(a, errorReason(a.EDE, ReasonRefused)), ""
	default:
		return failWith(a, errorReason(a.EDE, ReasonRcode)), ""
	}
	return a, ""
}

// refRecordsAt is the reference form of recordsAt (see refFromMsg).
func refRecordsAt(rrs []dns.RR, name string, qtype Type) (recs []Record, cname string) {
	for _, rr := range rrs {
		if !ownedBy(rr, name) {
			continue
		}
		if Type(rr.Header().Rrtype) == qtype {
			if r, ok := refDecode(rr); ok {
				recs = append(recs, r)
			}
			continue
		}
		if c, ok := rr.(*dns.CNAME); ok && cname == "" {
			cname = CanonicalName(c.Target)
		}
	}
	return recs, cname
}

// refDecode is the reference form of decodeInto (see refFromMsg).
func refDecode(rr dns.RR) (Record, bool) {
	h := rr.Header()
	r := Record{Name: CanonicalName(h.Name), Type: Type(h.Rrtype), TTL: h.Ttl}
	switch v := rr.(type) {
	case *dns.A:
		addr, ok := netip.AddrFromSlice(v.A.To4())
		if !ok {
			return r, false
		}
		r.Addr = addr
	case *dns.AAAA:
		addr, ok := netip.AddrFromSlice(v.AAAA.To16())
		if !ok {
			return r, false
		}
		r.Addr = addr
	case *dns.MX:
		r.Preference, r.Target = v.Preference, CanonicalName(v.Mx)
	case *dns.PTR:
		r.Target = CanonicalName(v.Ptr)
	case *dns.CNAME:
		r.Target = CanonicalName(v.Target)
	case *dns.TXT:
		r.TXT = unescapeAll(v.Txt)
	case *dns.SPF:
		r.TXT = unescapeAll(v.Txt)
	case *dns.CAA:
		r.CAAFlags, r.CAATag, r.CAAValue = v.Flag, unescape(v.Tag), v.Value
	case *dns.TLSA:
		data, err := hex.DecodeString(v.Certificate)
		if err != nil {
			return r, false
		}
		r.RData = append([]byte{v.Usage, v.Selector, v.MatchingType}, data...)
	}
	return r, true
}

// fromMsgOutcome is what one call said: its answer and next, or the
// panic it ended in.
type fromMsgOutcome struct {
	a        Answer
	next     string
	panicked string
}

func callFromMsg(f func(string, Type, *dns.Msg) (Answer, string), qname string, qtype Type, m *dns.Msg) (o fromMsgOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o = fromMsgOutcome{panicked: fmt.Sprint(p)}
		}
	}()
	o.a, o.next = f(qname, qtype, m)
	return o
}

// sameAsRef checks that FromMsg says for (qname, qtype, m) what the
// reference says, panics included, that the records hold no room past
// their length that is not zero, and that FromMsg leaves m as it was.
func sameAsRef(t *testing.T, qname string, qtype Type, m *dns.Msg) {
	t.Helper()
	before := ""
	if m != nil {
		before = m.String()
	}
	got := callFromMsg(FromMsg, qname, qtype, m)
	want := callFromMsg(refFromMsg, qname, qtype, m)
	if !reflect.DeepEqual(got, want) {
		require.Failf(t, "FromMsg differs from the reference", "qname %q qtype %d\nmsg:\n%v\ngot:  %+v\nwant: %+v",
			qname, qtype, m, got, want)
	}
	if got.panicked == "" {
		recs := got.a.Records
		for i, r := range recs[len(recs):cap(recs)] {
			require.Equal(t, Record{}, r, "slot %d past the length holds a record: qname %q qtype %d\n%v", len(recs)+i, qname, qtype, m)
		}
		for i, r := range recs {
			require.Equal(t, r.JoinedTXT(), strings.Join(r.TXT, ""), "record %d: joined text", i)
		}
	}
	if m != nil {
		require.Equal(t, before, m.String(), "FromMsg changed the message")
	}
}

// diffTypes are the question types the differential tests ask.
var diffTypes = []Type{TypeA, TypeAAAA, TypeTXT, TypeMX, TypeCAA, TypePTR, TypeCNAME, TypeTLSA, TypeSPF, TypeSOA, TypeNS, 0, 65280}

// diffNames are the owners, targets and question names the generator
// picks from: one name in several spellings (case, trailing dots, a
// Unicode letter that lower-cases to ASCII) and the root.
var diffNames = []string{"a.test.", "A.Test.", "a.test", "a.test..", "b.test.", "B.TEST", "c.test.", "\u212a.test.", "k.test.",
	"K.test", "", ".", "\xff.test.", "n1.test.", "n2.test.", "N3.Test."}

// msgGen builds a *dns.Msg from fuzzer bytes: sections of records of
// every kind FromMsg decodes (some that do not decode, nil entries,
// other classes, headers whose type is not the record's), CNAME chains
// and loops of any length, any RCODE, EDE options and SOAs.
type msgGen struct{ b []byte }

func (g *msgGen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *msgGen) name() string { return diffNames[int(g.byte())%len(diffNames)] }

func (g *msgGen) hdr(owner string, t uint16) dns.RR_Header {
	class := uint16(dns.ClassINET)
	if c := g.byte(); c%16 == 15 {
		class = []uint16{dns.ClassCHAOS, dns.ClassANY, dns.ClassNONE, 0}[c/16%4]
	}
	return dns.RR_Header{Name: owner, Rrtype: t, Class: class, Ttl: uint32(g.byte())}
}

func (g *msgGen) rr(owner string) dns.RR {
	switch k := g.byte() % 22; k {
	case 0:
		return nil
	case 1:
		return &dns.A{Hdr: g.hdr(owner, dns.TypeA), A: net.IPv4(192, 0, 2, g.byte())}
	case 2: // does not decode
		return &dns.A{Hdr: g.hdr(owner, dns.TypeA), A: net.IP{1, 2, 3}[:g.byte()%4]}
	case 3:
		return &dns.AAAA{Hdr: g.hdr(owner, dns.TypeAAAA), AAAA: net.ParseIP(fmt.Sprintf("2001:db8::%x", g.byte()))}
	case 4: // does not decode, or an IPv4 address in an AAAA
		return &dns.AAAA{Hdr: g.hdr(owner, dns.TypeAAAA), AAAA: net.IP{1, 2, 3, 4, 5}[:g.byte()%6]}
	case 5:
		n := int(g.byte() % 4)
		txt := make([]string, n)
		for i := range txt {
			txt[i] = []string{`v=spf1 -all`, `a\"b`, `\000\255`, `x\`, ``, `\065`}[int(g.byte())%6]
		}
		return &dns.TXT{Hdr: g.hdr(owner, dns.TypeTXT), Txt: txt}
	case 6:
		return &dns.MX{Hdr: g.hdr(owner, dns.TypeMX), Preference: uint16(g.byte()), Mx: g.name()}
	case 7, 8, 9:
		return &dns.CNAME{Hdr: g.hdr(owner, dns.TypeCNAME), Target: g.name()}
	case 10:
		return &dns.TLSA{Hdr: g.hdr(owner, dns.TypeTLSA), Usage: 3, Selector: 1, MatchingType: 1, Certificate: "0aFF"}
	case 11: // does not decode
		return &dns.TLSA{Hdr: g.hdr(owner, dns.TypeTLSA), Usage: 3, Certificate: []string{"zz", "abc", "0g"}[int(g.byte())%3]}
	case 12:
		return &dns.CAA{Hdr: g.hdr(owner, dns.TypeCAA), Flag: g.byte(), Tag: `iss\ue`, Value: `ca.test; x=\y`}
	case 13:
		return &dns.PTR{Hdr: g.hdr(owner, dns.TypePTR), Ptr: g.name()}
	case 14:
		return &dns.SPF{Hdr: g.hdr(owner, dns.TypeSPF), Txt: []string{"v=spf1", " -all"}}
	case 15:
		return &dns.SOA{Hdr: g.hdr(owner, dns.TypeSOA), Ns: "ns.test.", Mbox: "h.test.", Minttl: uint32(g.byte())}
	case 16:
		return &dns.NS{Hdr: g.hdr(owner, dns.TypeNS), Ns: g.name()}
	case 17:
		return &dns.RFC3597{Hdr: g.hdr(owner, 65280), Rdata: "00"}
	case 18: // a header whose type is not the record's
		return &dns.A{Hdr: g.hdr(owner, uint16(diffTypes[int(g.byte())%len(diffTypes)])), A: net.IPv4(192, 0, 2, 9)}
	case 19: // a CNAME whose header says another type
		return &dns.CNAME{Hdr: g.hdr(owner, uint16(diffTypes[int(g.byte())%len(diffTypes)])), Target: g.name()}
	case 20: // a header that says CNAME on another record
		return &dns.TXT{Hdr: g.hdr(owner, dns.TypeCNAME), Txt: []string{"x"}}
	default:
		return &dns.A{Hdr: g.hdr(owner, dns.TypeA)} // nil address: does not decode
	}
}

// chain appends a chain of n aliases, start → N1 → … → Nn (0 ≤ n < 24,
// past MaxCNAMEChain), that ends in records, in nothing, or in a loop
// back to an earlier name in any case.
func (g *msgGen) chain(start string, rrs []dns.RR) []dns.RR {
	n := int(g.byte() % 24)
	names := []string{start}
	for i := 1; i <= n; i++ {
		names = append(names, fmt.Sprintf("N%d.chain.test.", i))
		if g.byte()%5 == 0 {
			names[i] = strings.ToLower(names[i])
		}
	}
	for i := 0; i < n; i++ {
		rrs = append(rrs, &dns.CNAME{Hdr: g.hdr(names[i], dns.TypeCNAME), Target: names[i+1]})
	}
	switch e := g.byte() % 4; e {
	case 0: // a loop back
		back := names[int(g.byte())%len(names)]
		if g.byte()%2 == 0 {
			back = strings.ToUpper(back)
		}
		rrs = append(rrs, &dns.CNAME{Hdr: g.hdr(names[n], dns.TypeCNAME), Target: back})
	case 1, 2: // records at the end
		for range int(g.byte()%4) + 1 {
			rrs = append(rrs, g.rr(names[n]))
		}
	}
	return rrs
}

func (g *msgGen) msg() (*dns.Msg, string, Type) {
	m := new(dns.Msg)
	qname := g.name()
	qtype := diffTypes[int(g.byte())%len(diffTypes)]
	m.Rcode = int(g.byte() % 24)
	if m.Rcode > 5 && g.byte()%2 == 0 {
		m.Rcode %= 6
	}
	m.AuthenticatedData = g.byte()%2 == 0
	if c := g.byte(); c%3 == 0 {
		opt := &dns.OPT{Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeOPT}}
		for range int(c/3%3) + 1 {
			opt.Option = append(opt.Option, &dns.EDNS0_EDE{InfoCode: uint16(g.byte() % 32)})
		}
		m.Extra = append(m.Extra, opt)
	}
	switch g.byte() % 4 {
	case 1:
		m.Ns = []dns.RR{&dns.SOA{Hdr: dns.RR_Header{Name: "test.", Rrtype: dns.TypeSOA, Class: dns.ClassINET}}}
	case 2:
		m.Ns = []dns.RR{nil, &dns.NS{Hdr: dns.RR_Header{Name: "test.", Rrtype: dns.TypeNS, Class: dns.ClassINET}, Ns: "ns.test."}}
	}
	if g.byte()%2 == 0 {
		m.Answer = g.chain(qname, m.Answer)
	}
	for range int(g.byte() % 24) {
		owner := g.name()
		if c := g.byte(); c%3 == 0 {
			owner = qname
		} else if c%3 == 1 && len(m.Answer) > 0 {
			if rr := m.Answer[int(c)%len(m.Answer)]; rr != nil {
				owner = rr.Header().Name
			}
		}
		m.Answer = append(m.Answer, g.rr(owner))
	}
	// Shuffle: the order of a section is the server's.
	for i := len(m.Answer) - 1; i > 0; i-- {
		j := int(g.byte()) % (i + 1)
		m.Answer[i], m.Answer[j] = m.Answer[j], m.Answer[i]
	}
	return m, qname, qtype
}

// TestFromMsgSameAsReference: FromMsg says what the reference says for
// messages that exercise each of its paths.
func TestFromMsgSameAsReference(t *testing.T) {
	chain := func(n int, loop bool) *dns.Msg {
		m := new(dns.Msg)
		for i := range n {
			m.Answer = append(m.Answer, &dns.CNAME{Hdr: dns.RR_Header{Name: fmt.Sprintf("n%d.test.", i), Rrtype: dns.TypeCNAME, Class: dns.ClassINET},
				Target: fmt.Sprintf("N%d.Test.", i+1)})
		}
		if loop {
			m.Answer = append(m.Answer, &dns.CNAME{Hdr: dns.RR_Header{Name: fmt.Sprintf("n%d.test.", n), Rrtype: dns.TypeCNAME, Class: dns.ClassINET},
				Target: "N0.TEST."})
		} else {
			m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: fmt.Sprintf("n%d.test.", n), Rrtype: dns.TypeA, Class: dns.ClassINET},
				A: net.IPv4(192, 0, 2, 1)})
		}
		return m
	}
	for _, n := range []int{0, 1, MaxCNAMEChain - 1, MaxCNAMEChain, MaxCNAMEChain + 1, 40} {
		for _, loop := range []bool{false, true} {
			sameAsRef(t, "n0.test", TypeA, chain(n, loop))
			sameAsRef(t, "N0.test.", TypeTXT, chain(n, loop))
		}
	}
	sameAsRef(t, "a.test", TypeA, nil)
	// Records that do not decode (and nil entries) before, between and
	// after good ones, in any number: the slots they leave.
	good := func(i int) dns.RR {
		return &dns.A{Hdr: dns.RR_Header{Name: "A.test.", Rrtype: dns.TypeA, Class: dns.ClassINET}, A: net.IPv4(192, 0, 2, byte(i))}
	}
	broken := &dns.A{Hdr: dns.RR_Header{Name: "a.TEST", Rrtype: dns.TypeA, Class: dns.ClassINET}}
	for n := range 20 {
		for _, at := range []int{0, 1, n / 2, n} {
			m := new(dns.Msg)
			for i := range n {
				if i == at {
					m.Answer = append(m.Answer, broken, nil)
				}
				m.Answer = append(m.Answer, good(i))
			}
			if at >= n {
				m.Answer = append(m.Answer, broken)
			}
			sameAsRef(t, "a.test", TypeA, m)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 128)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		g := &msgGen{b: b}
		m, qname, qtype := g.msg()
		sameAsRef(t, qname, qtype, m)
	}
}

// FuzzFromMsgSameAsReference: FromMsg says what the reference says, for
// whatever miekg/dns makes of arbitrary bytes (odd first byte) and for
// messages built from them (even first byte: msgGen).
func FuzzFromMsgSameAsReference(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 2, 3})
	f.Add([]byte{2, 1, 1, 0, 1, 0, 0, 0, 18, 0, 0, 2, 2, 2, 2, 2, 1, 1, 1, 1, 10, 11, 12})
	for _, seed := range []*dns.Msg{
		{Answer: []dns.RR{&dns.CNAME{Hdr: dns.RR_Header{Name: "a.test.", Rrtype: dns.TypeCNAME, Class: dns.ClassINET}, Target: "b.test."},
			&dns.A{Hdr: dns.RR_Header{Name: "B.test.", Rrtype: dns.TypeA, Class: dns.ClassINET}, A: net.IPv4(192, 0, 2, 1)}}},
		{Answer: []dns.RR{&dns.TLSA{Hdr: dns.RR_Header{Name: "a.test.", Rrtype: dns.TypeTLSA, Class: dns.ClassINET}, Certificate: "abcd"}}},
	} {
		seed.SetQuestion("a.test.", dns.TypeA)
		b, err := seed.Pack()
		require.NoError(f, err)
		f.Add(append([]byte{1}, b...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		if data[0]%2 == 0 {
			m, qname, qtype := (&msgGen{b: data[1:]}).msg()
			sameAsRef(t, qname, qtype, m)
			return
		}
		m := new(dns.Msg)
		_ = m.Unpack(data[1:]) // a partly unpacked message too
		qnames := []string{"a.test", "A.TEST."}
		if len(m.Question) > 0 {
			qnames = append(qnames, m.Question[0].Name, strings.ToUpper(m.Question[0].Name))
		}
		for _, rr := range m.Answer {
			if rr != nil {
				qnames = append(qnames, rr.Header().Name)
			}
			if len(qnames) > 6 {
				break
			}
		}
		for _, qname := range qnames {
			for _, qt := range diffTypes {
				sameAsRef(t, qname, qt, m)
			}
		}
	})
}
