package spf

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// evalZone holds the scenarios of TestEvaluate. Addresses are never
// connected to; they are only compared with the client address.
const evalZone = `$ORIGIN ev.test.
@          SOA ns.ev.test. hostmaster.ev.test. 1 3600 600 86400 300
ip4        TXT "v=spf1 ip4:203.0.113.0/24 -all"
ip6        TXT "v=spf1 ip6:2001:db8::/32 -all"
inc        TXT "v=spf1 a:nothing.ev.test include:ip4.ev.test -all"
none       TXT "not spf"
two        TXT "v=spf1 -all"
two        TXT "v=spf1 +all"
syntax     TXT "v=spf1 ip4:203.0.113.1 bogus -all"
incnone    TXT "v=spf1 include:none.ev.test -all"
redirnone  TXT "v=spf1 redirect=none.ev.test"
redir      TXT "v=spf1 redirect=ip4.ev.test"
void       TXT "v=spf1 a:v1.ev.test a:v2.ev.test a:v3.ev.test -all"
mx11       TXT "v=spf1 mx -all"
mx11       MX 1 m1.ev.test.
mx11       MX 2 m2.ev.test.
mx11       MX 3 m1.ev.test.
mx11       MX 4 m2.ev.test.
mx11       MX 5 m1.ev.test.
mx11       MX 6 m2.ev.test.
mx11       MX 7 m1.ev.test.
mx11       MX 8 m2.ev.test.
mx11       MX 9 m1.ev.test.
mx11       MX 10 m2.ev.test.
mx11       MX 11 m1.ev.test.
mx         TXT "v=spf1 ~mx:mx11.ev.test/24 ?mx -all"
mx         MX 10 m1.ev.test.
m1         A 198.51.100.7
m2         A 198.51.100.8
broken     TXT "v=spf1 a:sf.ev.test -all"
sf         A 203.0.113.9
neutral    TXT "v=spf1 ip4:203.0.113.1"
macro6     TXT "v=spf1 exists:%{ir}.%{v}.%{l}.e.ev.test -all"
1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.x.e A 127.0.0.2
ptr        TXT "v=spf1 exists:%{p}.p.ev.test ptr:ev.test -all"
host.ev.test.p A 127.0.0.2
host       A 203.0.113.77
helo       TXT "v=spf1 a:mail.ev.test -all"
mail       A 203.0.113.5
77.113.0.203.in-addr.arpa. PTR host.ev.test.
`

func TestEvaluate(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, evalZone)
	v6 := "2001:db8::1"
	matchedAt := func(v Verdict, k Kind, term, depth, lookups, voids int) Evaluation {
		return Evaluation{Identity: IdentityMailFrom, Verdict: v, Reason: ReasonMatched, Mechanism: k, Term: term, Depth: depth, Lookups: lookups, VoidLookups: voids}
	}
	ended := func(v Verdict, r EvalReason, lookups, voids int) Evaluation {
		return Evaluation{Identity: IdentityMailFrom, Verdict: v, Reason: r, Lookups: lookups, VoidLookups: voids}
	}
	tests := []struct {
		name   string
		ip     string
		sender string
		helo   string
		faults []dnstest.FaultAt
		want   Evaluation
	}{
		{name: "ip4 pass", ip: "203.0.113.10", sender: "a@ip4.ev.test", want: matchedAt(VerdictPass, KindIP4, 1, 0, 0, 0)},
		{name: "ip4 fail", ip: "198.51.100.1", sender: "a@ip4.ev.test", want: matchedAt(VerdictFail, KindAll, 2, 0, 0, 0)},
		{name: "mapped address is IPv4", ip: "::ffff:203.0.113.10", sender: "a@ip4.ev.test", want: matchedAt(VerdictPass, KindIP4, 1, 0, 0, 0)},
		{name: "ip4 never matches IPv6", ip: v6, sender: "a@ip4.ev.test", want: matchedAt(VerdictFail, KindAll, 2, 0, 0, 0)},
		{name: "ip6 zone ignored", ip: "2001:db8::1%eth0", sender: "a@ip6.ev.test", want: matchedAt(VerdictPass, KindIP6, 1, 0, 0, 0)},
		// a:nothing (1, void) include (2) → ip4 at depth 1.
		{name: "include pass", ip: "203.0.113.10", sender: "a@inc.ev.test", want: matchedAt(VerdictPass, KindInclude, 2, 0, 2, 1)},
		{name: "redirect", ip: "203.0.113.10", sender: "a@redir.ev.test", want: matchedAt(VerdictPass, KindIP4, 1, 1, 1, 0)},
		{name: "no record", ip: "203.0.113.10", sender: "a@none.ev.test", want: ended(VerdictNone, ReasonNoRecord, 0, 0)},
		{name: "nxdomain", ip: "203.0.113.10", sender: "a@absent.ev.test", want: ended(VerdictNone, ReasonNoRecord, 0, 0)},
		{name: "domain literal", ip: "203.0.113.10", sender: "a@[203.0.113.10]", want: ended(VerdictNone, ReasonInvalidDomain, 0, 0)},
		{name: "single label", ip: "203.0.113.10", sender: "a@localhost", want: ended(VerdictNone, ReasonInvalidDomain, 0, 0)},
		{name: "empty label", ip: "203.0.113.10", sender: "a@ip4..ev.test", want: ended(VerdictNone, ReasonInvalidDomain, 0, 0)},
		{name: "two records", ip: "203.0.113.10", sender: "a@two.ev.test", want: ended(VerdictPermError, ReasonMultiple, 0, 0)},
		{name: "syntax", ip: "203.0.113.1", sender: "a@syntax.ev.test", want: func() Evaluation {
			e := ended(VerdictPermError, ReasonSyntax, 0, 0)
			e.Cause = CodeSyntaxUnknownMechanism
			return e
		}()},
		{name: "include none", ip: "203.0.113.10", sender: "a@incnone.ev.test", want: ended(VerdictPermError, ReasonIncludeNone, 1, 0)},
		{name: "redirect none", ip: "203.0.113.10", sender: "a@redirnone.ev.test", want: ended(VerdictPermError, ReasonRedirectNone, 1, 0)},
		// three a terms naming nothing: the third void lookup is one too many.
		{name: "void limit", ip: "203.0.113.10", sender: "a@void.ev.test", want: ended(VerdictPermError, ReasonVoidLimit, 3, 3)},
		{name: "mx over 10 records naming 2 hosts", ip: "203.0.113.10", sender: "a@mx11.ev.test", want: ended(VerdictPermError, ReasonMXLimit, 1, 0)},
		// ~mx:mx11.ev.test, term 1, has 11 records, but its first exchange
		// (m1, in the /24) matches: no 11th address lookup is ever made, so
		// no permerror (§4.6.4 limits the lookups made).
		{name: "mx over 10 records, an early exchange matches", ip: "198.51.100.7", sender: "a@mx.ev.test", want: matchedAt(VerdictSoftFail, KindMX, 1, 0, 1, 0)},
		{name: "dns error", ip: "203.0.113.10", sender: "a@broken.ev.test",
			faults: []dnstest.FaultAt{{Name: "sf.ev.test", Type: resolver.TypeA, Fault: dnstest.ServFail}},
			want:   ended(VerdictTempError, ReasonDNSError, 1, 0)},
		{name: "record timeout", ip: "203.0.113.10", sender: "a@ip4.ev.test",
			faults: []dnstest.FaultAt{{Name: "ip4.ev.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
			want:   ended(VerdictTempError, ReasonRecordLookupErr, 0, 0)},
		{name: "neutral", ip: "203.0.113.2", sender: "a@neutral.ev.test", want: ended(VerdictNeutral, ReasonNoMatch, 0, 0)},
		{name: "ipv6 macros", ip: v6, sender: "x@macro6.ev.test", want: matchedAt(VerdictPass, KindExists, 1, 0, 1, 0)},
		{name: "p macro and ptr", ip: "203.0.113.77", sender: "x@ptr.ev.test", want: matchedAt(VerdictPass, KindExists, 1, 0, 1, 0)},
		{name: "ptr without p", ip: "203.0.113.78", sender: "x@ptr.ev.test", want: matchedAt(VerdictFail, KindAll, 3, 0, 2, 2)},
		{name: "helo identity", ip: "203.0.113.5", helo: "helo.ev.test", want: Evaluation{
			Identity: IdentityHELO, Verdict: VerdictPass, Reason: ReasonMatched, Mechanism: KindA, Term: 1, Lookups: 1}},
	}
	covered := map[EvalReason]bool{ReasonLookupLimit: true} // TestEvaluateLookupLimit
	for _, tc := range tests {
		covered[tc.want.Reason] = true
	}
	for _, r := range EvalReasons() {
		assert.True(t, covered[r], "no case ends with reason %s", r)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			got, err := Evaluate(t.Context(), r, Query{IP: netip.MustParseAddr(tc.ip), Sender: tc.sender, HELO: tc.helo})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "Evaluate")
		})
	}
}

// TestEvaluateLookupLimit: eleven a terms that all find an address for
// another client: the eleventh is one DNS-causing term too many.
func TestEvaluateLookupLimit(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$ORIGIN lim.test.
@ TXT "v=spf1 a a a a a a a a a a a -all"
@ A 198.51.100.1
ten TXT "v=spf1 a a a a a a a a a a -all"
ten A 198.51.100.1
`)
	for _, tc := range []struct {
		domain string
		want   Evaluation
	}{
		{"lim.test", Evaluation{Identity: IdentityMailFrom, Verdict: VerdictPermError, Reason: ReasonLookupLimit, Lookups: 11}},
		{"ten.lim.test", Evaluation{Identity: IdentityMailFrom, Verdict: VerdictFail, Reason: ReasonMatched, Mechanism: KindAll, Term: 11, Lookups: 10}},
	} {
		got, err := Evaluate(t.Context(), dnstest.NewResolver(z), Query{IP: netip.MustParseAddr("203.0.113.1"), Sender: "a@" + tc.domain})
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s", tc.domain)
	}
}

func TestEvaluateBadQuery(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(dnstest.MustParse(t, evalZone))
	for _, q := range []Query{
		{Sender: "a@ip4.ev.test"},
		{IP: netip.MustParseAddr("203.0.113.1"), Sender: strings.Repeat("a", MaxSenderLength-11) + "@ip4.ev.test"},
		{IP: netip.MustParseAddr("203.0.113.1"), HELO: strings.Repeat("a.", 128)},
	} {
		_, err := Evaluate(t.Context(), r, q)
		assert.ErrorIs(t, err, ErrQuery, "Evaluate(%+v)", q)
	}
	assert.Empty(t, r.Queries(), "a refused query asked DNS")
}

// TestPresentationName checks the escaping against miekg/dns, which
// writes names it decodes from the wire in the same form.
func TestPresentationName(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"plain.example", "a b.example", "x%20y\\z\"(q);@.example", "\x00\x7f\xff.example", "it's.example"} {
		wire := make([]byte, 300)
		labels := strings.Split(raw, ".")
		off := 0
		for _, l := range labels {
			wire[off] = byte(len(l))
			copy(wire[off+1:], l)
			off += 1 + len(l)
		}
		wire[off] = 0
		name, _, err := dns.UnpackDomainName(wire[:off+1], 0)
		require.NoError(t, err)
		assert.Equal(t, name, presentationName(raw)+".", "presentationName(%q): want what miekg/dns writes", raw)
	}
}

// TestEvaluateDepthBound: the recursion of include and redirect has a
// bound of its own, MaxDepth, that holds without the lookup count: a
// check past it is a permerror and asks DNS nothing.
func TestEvaluateDepthBound(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(dnstest.MustParse(t, evalZone))
	e := newEvaluator(r, Query{IP: netip.MustParseAddr("203.0.113.10"), Sender: "a@ip4.ev.test"})
	atMax := e.checkHost(t.Context(), "ip4.ev.test", MaxDepth)
	assert.Equal(t, VerdictPass, atMax.Verdict, "at MaxDepth: %+v, want pass", atMax)
	asked := len(r.Queries())
	got := e.checkHost(t.Context(), "ip4.ev.test", MaxDepth+1)
	assert.Equal(t, stop(VerdictPermError, ReasonLookupLimit), got, "past MaxDepth")
	assert.Len(t, r.Queries(), asked, "past MaxDepth asked DNS")
}

// TestExpandNameKeepsTail: a domain-spec of thousands of macros expands
// to the same name as the whole expansion cut from the left would give,
// while the text kept during the expansion stays within about twice
// maxNameText plus one macro's value.
func TestExpandNameKeepsTail(t *testing.T) {
	t.Parallel()
	sender := strings.Repeat("a+", 100) + "@" + strings.Repeat("b.", 20) + "example.com"
	val := func(letter byte) (string, bool) {
		switch letter {
		case 's':
			return sender, true
		case 'l':
			return strings.Repeat("L", 63), true
		}
		return "d.example.com", true
	}
	longest := 3 * len(sender) // %{S}: every octet URL-escaped at worst
	for _, spec := range []string{
		strings.Repeat("%{S}.", 4000) + "x.example",
		strings.Repeat("%{s}", 4000) + ".%{d}",
		strings.Repeat("%{l}.", 5000) + "%{d}",
		strings.Repeat("%{l}", 5000) + ".%{d}",
		strings.Repeat("%{l}.", 3) + "%{d}",
		strings.Repeat("%{d}.%{l}%{l}.", 700) + "x.example.",
		strings.Repeat("ab.%{l}", 999) + "%{ir}.example",
	} {
		full, ok := expandMacroString(spec, val)
		require.True(t, ok, "expandMacroString(%.20q…) failed", spec)
		got, ok := expandName(spec, val)
		want := finishName(full)
		assert.True(t, ok, "expandName(%.20q…) failed", spec)
		assert.Equal(t, want, got, "expandName(%.20q…) = %.40q (%d octets), want %.40q (%d octets)", spec, got, len(got), want, len(want))
		kept, _ := expandText(spec, val, maxNameText)
		assert.LessOrEqual(t, len(kept), 2*maxNameText+longest, "expandText(%.20q…) kept %d octets", spec, len(kept))
	}
}

// TestEvaluateMXCountAgreesWithCheck: ten MX records and a null MX (which
// names no host to look up) are within the mx limit for Evaluate as for
// Check; eleven that name hosts are over it for both when the client
// matches none of them. A client that matches an exchange before the
// 11th is never over it: the 11th address lookup is never made (RFC 7208
// §4.6.4), so Evaluate passes it while Check, which judges the worst
// case, still reports the limit.
func TestEvaluateMXCountAgreesWithCheck(t *testing.T) {
	t.Parallel()
	var zone strings.Builder
	zone.WriteString("$ORIGIN mxn.test.\n@ SOA ns.mxn.test. hostmaster.mxn.test. 1 3600 600 86400 300\n")
	zone.WriteString("ten TXT \"v=spf1 mx -all\"\nten MX 0 .\neleven TXT \"v=spf1 mx -all\"\n")
	for i := 1; i <= 11; i++ {
		if i <= 10 {
			fmt.Fprintf(&zone, "ten MX %d h%d.mxn.test.\n", i, i)
		}
		fmt.Fprintf(&zone, "eleven MX %d h%d.mxn.test.\nh%d A 198.51.100.%d\n", i, i, i, i)
	}
	z := dnstest.MustParse(t, zone.String())
	for _, tc := range []struct {
		domain string
		ip     string
		want   Verdict
		over   bool
	}{
		{"ten.mxn.test", "198.51.100.3", VerdictPass, false},
		{"eleven.mxn.test", "198.51.100.3", VerdictPass, true},       // h3 matches: 3 address lookups
		{"eleven.mxn.test", "198.51.100.10", VerdictPass, true},      // h10 matches: the 10th lookup
		{"eleven.mxn.test", "198.51.100.11", VerdictPermError, true}, // h11 would be the 11th
		{"eleven.mxn.test", "203.0.113.1", VerdictPermError, true},
	} {
		ev, err := Evaluate(t.Context(), dnstest.NewResolver(z), Query{IP: netip.MustParseAddr(tc.ip), Sender: "a@" + tc.domain})
		require.NoError(t, err)
		assert.Equal(t, tc.want, ev.Verdict, "Evaluate %s for %s: %s (%s)", tc.domain, tc.ip, ev.Verdict, ev.Reason)
		res := Check(t.Context(), dnstest.NewResolver(z), tc.domain)
		assert.Equal(t, tc.over, slices.Contains(res.Findings, CodeMXTooMany), "Check %s: mx_over_10", tc.domain)
	}
}

// TestEvaluateEscapedHostNames: exchange and PTR names from answers come
// in presentation form (a space as "\ "); Evaluate looks them up as
// they are, not escaped a second time, so an mx or ptr mechanism matches
// a host whose name has such an octet, as it would at any receiver
// (RFC 2181 §11 allows any octet in a label). Over the loopback server
// and resolver.Client, so the names go through a real message.
func TestEvaluateEscapedHostNames(t *testing.T) {
	t.Parallel()
	z := dnstest.MustParse(t, `$ORIGIN esc.test.
@          SOA ns.esc.test. hostmaster.esc.test. 1 3600 600 86400 300
mx         TXT "v=spf1 mx -all"
mx         MX 10 a\ b.esc.test.
ptr        TXT "v=spf1 ptr -all"
a\ b       A 203.0.113.5
6.113.0.203.in-addr.arpa. PTR c\@d.ptr.esc.test.
c\@d.ptr   A 203.0.113.6
`)
	srv := dnstest.Start(t, z)
	for _, tc := range []struct {
		ip, sender string
		kind       Kind
	}{
		{"203.0.113.5", "a@mx.esc.test", KindMX},
		{"203.0.113.6", "a@ptr.esc.test", KindPTR},
	} {
		ev, err := Evaluate(t.Context(), srv.Client(dnstest.PatientTimeout), Query{IP: netip.MustParseAddr(tc.ip), Sender: tc.sender})
		require.NoError(t, err)
		assert.Equal(t, VerdictPass, ev.Verdict, "%s from %s: %s (%s %s), want pass by %s", tc.sender, tc.ip, ev.Verdict, ev.Reason, ev.Mechanism, tc.kind)
		assert.Equal(t, tc.kind, ev.Mechanism, "%s from %s: %s (%s %s), want pass by %s", tc.sender, tc.ip, ev.Verdict, ev.Reason, ev.Mechanism, tc.kind)
	}
}
