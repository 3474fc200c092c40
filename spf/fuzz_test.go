package spf

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// FuzzParse checks that Parse never panics, that every error is a
// *SyntaxError wrapping ErrSyntax, and that String round-trips:
// Parse(r.String()) gives back r.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"v=spf1", "v=spf1 -all", "V=SPF1 MX -ALL", bench20,
		"v=spf1 a/24//64 mx:example.net/28 -all", "v=spf1 a:%{d}/0//0 mx//128",
		"v=spf1 ip4:192.0.2.0/33 -all", "v=spf1 ip6:2001:db8::/129", "v=spf1 ip6:::ffff:192.0.2.1/96",
		"v=spf1 exists:%{ir}.%{l1r+-}._spf.%{d} include:%{d2}.example.com.",
		"v=spf1 a:%_%-%%.example.com foo=%{c} redirect=x.example exp=y.example",
		"v=spf1 redirect=a.example redirect=b.example", "v=spf1 -all garbage!", "v=spf1 mx\t-all",
		"v=spf1 include:é.example", "v=spf1 a:%{d}//.com", "v=spf1 =x", "v=spf10",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			require.ErrorAs(t, err, &se, "Parse(%q): error %v is not a *SyntaxError", s, err)
			require.ErrorIs(t, err, ErrSyntax, "Parse(%q): error %v is not a *SyntaxError", s, err)
			require.True(t, se.Code.isSyntax(), "Parse(%q): error %v is not a *SyntaxError", s, err)
			return
		}
		text := r.String()
		again, err := Parse(text)
		require.NoError(t, err, "Parse(%q) ok, but its String %q fails", s, text)
		require.Equal(t, r, again, "round trip of %q via %q", s, text)
	})
}

// FuzzExpandMacro checks the macro expander on any string and sender: it
// never panics, it succeeds exactly for valid macro-strings (c, r and t
// allowed, when the string has a "%") when every letter has a value, a
// string without "%" is left as it is, a name is cut to MaxDomainLength unless it is one label, and an
// upper-case letter's expansion holds only unreserved characters and
// %XX escapes (RFC 7208 §7.3).
func FuzzExpandMacro(f *testing.F) {
	for _, s := range []string{
		"%{d}", "%{ir}.%{v}._spf.%{d2}", "%{lr-}.lp._spf.%{d2}", "%{L}%{S}%{O}", "%%%_%-", "%{d0}", "%{x}",
		"%", "%{", "%{d", "%{d9999999999999999999}", "%{dr-+,/_=}", "%{c}.%{r}.%{t}", "a.b.c", "%{h}.%{p}",
	} {
		f.Add(s, "user+tag@Example.COM")
	}
	f.Fuzz(func(t *testing.T, s, sender string) {
		val := func(letter byte) (string, bool) {
			switch letter {
			case 's':
				return sender, true
			case 'l', 'o', 'h':
				return strings.ToUpper(sender), true
			}
			return "d.example.com", letterBit(letter) != 0
		}
		out, ok := expandMacroString(s, val)
		if _, valid := scanMacroString(s, true); strings.Contains(s, "%") {
			require.Equal(t, valid, ok, "expandMacroString(%q) ok=%v, but the macro-string is valid=%v", s, ok, valid)
		}
		if !strings.Contains(s, "%") {
			require.True(t, ok, "expandMacroString(%q) = %q, %v; want it unchanged", s, out, ok)
			require.Equal(t, s, out, "expandMacroString(%q) = %q, %v; want it unchanged", s, out, ok)
		}
		again, _ := expandMacroString(s, val)
		require.Equal(t, out, again, "expandMacroString(%q) not deterministic", s)
		name, nameOK := expandName(s, val)
		if nameOK && strings.Contains(name, ".") {
			require.LessOrEqual(t, len(name), MaxDomainLength, "expandName(%q) = %d octets with a dot, over %d", s, len(name), MaxDomainLength)
		}
		require.Equal(t, ok, nameOK, "expandName(%q) = %q, %v; the whole expansion cut gives %q, %v", s, name, nameOK, finishName(out), ok)
		if nameOK && validName(name) {
			require.Equal(t, finishName(out), name, "expandName(%q) = %q, %v; the whole expansion cut gives %q, %v", s, name, nameOK, finishName(out), ok)
		}
		esc, ok := expandMacroString("%{S}", val)
		for i := 0; ok && i < len(esc); i++ {
			c := esc[i]
			unreserved := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~%", c) >= 0
			require.True(t, unreserved, "%%{S} of %q = %q: %q is not escaped", sender, esc, c)
		}
	})
}

// FuzzEvaluate evaluates any record text at fuzz.test with any sender
// local-part: no panic, one of the seven results, and the limits hold
// (at most one term past MaxLookups and one void past MaxVoidLookups).
func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{
		"v=spf1 -all", "v=spf1 a mx ptr exists:%{l}.x.test include:inc.test redirect=inc.test",
		"v=spf1 exists:%{ir}.%{l1r-}.%{p}.%{v}.%{h}.%{s}.%{o}.%{d}.x.test ~all", "v=spf1 include:fuzz.test",
		"v=spf1 a:%{L}.x.test/24//64 mx:inc.test/0 ?all", "v=spf1 redirect=%{l}.test",
	} {
		f.Add(s, "a.b-c")
	}
	z := dnstest.MustParse(f, `inc.test. TXT "v=spf1 a:x.test include:fuzz.test ~all"
inc.test. MX 10 x.test.
x.test. A 203.0.113.1
*.x.test. A 203.0.113.2
1.113.0.203.in-addr.arpa. PTR x.test.
`)
	f.Fuzz(func(t *testing.T, record, local string) {
		r := fuzzRecord{Resolver: dnstest.NewResolver(z), record: record}
		ev, err := Evaluate(t.Context(), r, Query{IP: netip.MustParseAddr("203.0.113.1"), Sender: local + "@fuzz.test", HELO: "x.test"})
		if err != nil {
			require.Greater(t, len(local)+len("@fuzz.test"), MaxSenderLength, "Evaluate: %v", err)
			return
		}
		require.Contains(t, []Verdict{VerdictNone, VerdictNeutral, VerdictPass, VerdictFail, VerdictSoftFail, VerdictTempError, VerdictPermError},
			ev.Verdict, "verdict %q", ev.Verdict)
		require.LessOrEqual(t, ev.Lookups, MaxLookups+1, "%d lookups, %d voids: past the limits", ev.Lookups, ev.VoidLookups)
		require.LessOrEqual(t, ev.VoidLookups, MaxVoidLookups+1, "%d lookups, %d voids: past the limits", ev.Lookups, ev.VoidLookups)
	})
}

// fuzzRecord serves record as the TXT record of fuzz.test and everything
// else from the zones.
type fuzzRecord struct {
	*dnstest.Resolver
	record string
}

func (r fuzzRecord) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	if resolver.CanonicalName(name) == "fuzz.test" && qtype == resolver.TypeTXT {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: "fuzz.test", Type: resolver.TypeTXT, TXT: []string{r.record}}}}
	}
	return r.Resolver.Lookup(ctx, name, qtype)
}

// FuzzWireForm: any name from an answer gives no panic, and a name it
// accepts survives presentationName and wireForm again unchanged.
func FuzzWireForm(f *testing.F) {
	for _, s := range []string{`a\ b.test`, `c\@d.test`, `e\032f.test`, `g\.h.test`, `\999.test`, `x\`, "plain.test"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		w, ok := wireForm(name)
		if !ok {
			return
		}
		again, ok := wireForm(presentationName(w))
		require.True(t, ok, "wireForm(%q) = %q; through presentationName and back: %q, %v", name, w, again, ok)
		require.Equal(t, w, again, "wireForm(%q) = %q; through presentationName and back: %q, %v", name, w, again, ok)
	})
}
