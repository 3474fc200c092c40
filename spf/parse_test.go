package spf

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pfx(s string) netip.Prefix {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		panic(err)
	}
	return p
}

func TestParseValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Term
	}{
		{"empty", "v=spf1", nil},
		{"trailing-spaces", "v=spf1 -all  ", []Term{{Kind: KindAll, Qualifier: QualifierFail}}},
		{"upper-case", "V=SPF1 MX -ALL", []Term{
			{Kind: KindMX, Qualifier: QualifierPass, CIDR4: 32, CIDR6: 128},
			{Kind: KindAll, Qualifier: QualifierFail},
		}},
		{"qualifiers", "v=spf1 +a -a ~a ?a", []Term{
			{Kind: KindA, Qualifier: QualifierPass, CIDR4: 32, CIDR6: 128},
			{Kind: KindA, Qualifier: QualifierFail, CIDR4: 32, CIDR6: 128},
			{Kind: KindA, Qualifier: QualifierSoftFail, CIDR4: 32, CIDR6: 128},
			{Kind: KindA, Qualifier: QualifierNeutral, CIDR4: 32, CIDR6: 128},
		}},
		{"double-space", "v=spf1  ip4:198.51.100.1   -all", []Term{
			{Kind: KindIP4, Qualifier: QualifierPass, Net: pfx("198.51.100.1/32")},
			{Kind: KindAll, Qualifier: QualifierFail},
		}},
		// doc/rfc-notes.md §3.5 #18: dual CIDR on a and mx.
		{"dual-cidr", "v=spf1 a/24//64 mx:example.net/28 a//0 mx:%{d}/0//128 -all", []Term{
			{Kind: KindA, Qualifier: QualifierPass, CIDR4: 24, CIDR6: 64},
			{Kind: KindMX, Qualifier: QualifierPass, DomainSpec: "example.net", CIDR4: 28, CIDR6: 128},
			{Kind: KindA, Qualifier: QualifierPass, CIDR4: 32, CIDR6: 0},
			{Kind: KindMX, Qualifier: QualifierPass, DomainSpec: "%{d}", CIDR4: 0, CIDR6: 128},
			{Kind: KindAll, Qualifier: QualifierFail},
		}},
		// ip4/ip6 CIDR edge values: /0 and the full length.
		{"cidr-edges", "v=spf1 ip4:0.0.0.0/0 ip4:192.0.2.1/32 ip6:::/0 ip6:2001:db8::1/128 ip6:::ffff:192.0.2.1/96", []Term{
			{Kind: KindIP4, Qualifier: QualifierPass, Net: pfx("0.0.0.0/0")},
			{Kind: KindIP4, Qualifier: QualifierPass, Net: pfx("192.0.2.1/32")},
			{Kind: KindIP6, Qualifier: QualifierPass, Net: pfx("::/0")},
			{Kind: KindIP6, Qualifier: QualifierPass, Net: pfx("2001:db8::1/128")},
			{Kind: KindIP6, Qualifier: QualifierPass, Net: netip.PrefixFrom(netip.MustParseAddr("::ffff:192.0.2.1"), 96)},
		}},
		{"host-bits-kept", "v=spf1 ip4:192.0.2.77/24", []Term{
			{Kind: KindIP4, Qualifier: QualifierPass, Net: netip.PrefixFrom(netip.MustParseAddr("192.0.2.77"), 24)},
		}},
		// doc/rfc-notes.md §3.5 #19 (first) and #22: unknown modifier kept, exp parsed.
		{"modifiers", "v=spf1 foo=bar exp=why.example.com x-y_z.1=%{l}%% redirect=_spf.example.net", []Term{
			{Kind: KindModifier, Name: "foo", Value: "bar"},
			{Kind: KindExp, DomainSpec: "why.example.com"},
			{Kind: KindModifier, Name: "x-y_z.1", Value: "%{l}%%"},
			{Kind: KindRedirect, DomainSpec: "_spf.example.net"},
		}},
		{"empty-unknown-modifier", "v=spf1 foo=", []Term{{Kind: KindModifier, Name: "foo"}}},
		{"modifier-case", "v=spf1 REDIRECT=example.com Exp=x.example.com", []Term{
			{Kind: KindRedirect, DomainSpec: "example.com"},
			{Kind: KindExp, DomainSpec: "x.example.com"},
		}},
		{"macros", "v=spf1 exists:%{ir}.%{l1r+-}._spf.%{d} include:%{d2}.example.com. ptr:%{D}.x.org a:%_%-%%.example.com -all", []Term{
			{Kind: KindExists, Qualifier: QualifierPass, DomainSpec: "%{ir}.%{l1r+-}._spf.%{d}"},
			{Kind: KindInclude, Qualifier: QualifierPass, DomainSpec: "%{d2}.example.com."},
			{Kind: KindPTR, Qualifier: QualifierPass, DomainSpec: "%{D}.x.org"},
			{Kind: KindA, Qualifier: QualifierPass, DomainSpec: "%_%-%%.example.com", CIDR4: 32, CIDR6: 128},
			{Kind: KindAll, Qualifier: QualifierFail},
		}},
		{"ptr-bare", "v=spf1 ptr ?all", []Term{
			{Kind: KindPTR, Qualifier: QualifierPass},
			{Kind: KindAll, Qualifier: QualifierNeutral},
		}},
		{"toplabel-forms", "v=spf1 include:a.xn--p1ai include:b.c0m include:c.1-2", []Term{
			{Kind: KindInclude, Qualifier: QualifierPass, DomainSpec: "a.xn--p1ai"},
			{Kind: KindInclude, Qualifier: QualifierPass, DomainSpec: "b.c0m"},
			{Kind: KindInclude, Qualifier: QualifierPass, DomainSpec: "c.1-2"},
		}},
		{"after-all-valid", "v=spf1 -all include:x.example", []Term{
			{Kind: KindAll, Qualifier: QualifierFail},
			{Kind: KindInclude, Qualifier: QualifierPass, DomainSpec: "x.example"},
		}},
		// A second "v=spf1" is an unknown modifier named v (RFC 7208 §6).
		{"second-version", "v=spf1 v=spf1", []Term{{Kind: KindModifier, Name: "v", Value: "spf1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			require.NoError(t, err, "Parse(%q)", tc.in)
			require.Equal(t, tc.want, got.Terms, "Parse(%q)", tc.in)
			again, err := Parse(got.String())
			require.NoError(t, err, "round trip of %q via %q", tc.in, got.String())
			require.Equal(t, got, again, "round trip of %q via %q", tc.in, got.String())
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		index int
		code  Code
	}{
		{"not-spf", "v=spf10 -all", 0, CodeSyntaxVersion},
		{"leading-space", " v=spf1 -all", 0, CodeSyntaxVersion},
		{"sender-id", "spf2.0/pra -all", 0, CodeSyntaxVersion},
		{"empty", "", 0, CodeSyntaxVersion},
		// doc/rfc-notes.md §3.5 #28: a tab is not a separator.
		{"tab", "v=spf1 mx\t-all", 1, CodeSyntaxCharacter},
		{"non-ascii", "v=spf1 include:é.example -all", 1, CodeSyntaxCharacter},
		// doc/rfc-notes.md §3.5 #3: "…100.1" "-all" joined.
		{"joined-strings", "v=spf1 ip4:198.51.100.1-all", 1, CodeSyntaxIP4},
		// doc/rfc-notes.md §3.5 #17.
		{"ip4-cidr-33", "v=spf1 ip4:192.0.2.0/33 -all", 1, CodeSyntaxCIDR},
		{"ip4-short", "v=spf1 ip4:192.0.2 -all", 1, CodeSyntaxIP4},
		{"ip4-leading-zero", "v=spf1 ip4:192.0.2.010 -all", 1, CodeSyntaxIP4},
		{"ip6-cidr-129", "v=spf1 ip6:2001:db8::/129 -all", 1, CodeSyntaxCIDR},
		{"cidr-leading-zero", "v=spf1 ip4:192.0.2.0/024", 1, CodeSyntaxCIDR},
		{"cidr-empty", "v=spf1 ip6:2001:db8::/", 1, CodeSyntaxCIDR},
		{"ip4-in-ip6", "v=spf1 ip6:192.0.2.1", 1, CodeSyntaxIP6},
		{"ip6-in-ip4", "v=spf1 ip4:::1", 1, CodeSyntaxIP4},
		{"ip6-zone", "v=spf1 ip6:fe80::1%eth0", 1, CodeSyntaxIP6},
		{"ip4-missing", "v=spf1 ip4", 1, CodeSyntaxIP4},
		{"a-cidr-33", "v=spf1 a/33", 1, CodeSyntaxCIDR},
		{"mx-cidr6-129", "v=spf1 mx//129", 1, CodeSyntaxCIDR},
		{"a-cidr-order", "v=spf1 a//64/24", 1, CodeSyntaxArgument},
		// doc/rfc-notes.md §3.5 #19.
		{"unknown-mechanism", "v=spf1 foo -all", 1, CodeSyntaxUnknownMechanism},
		{"include-bare", "v=spf1 include -all", 1, CodeSyntaxMissingDomain},
		{"include-colon", "v=spf1 include: -all", 1, CodeSyntaxMissingDomain},
		{"exists-bare", "v=spf1 exists", 1, CodeSyntaxMissingDomain},
		{"a-colon", "v=spf1 a:", 1, CodeSyntaxMissingDomain},
		{"redirect-empty", "v=spf1 redirect=", 1, CodeSyntaxMissingDomain},
		// doc/rfc-notes.md §3.5 #13.
		{"duplicate-redirect", "v=spf1 redirect=a.example redirect=b.example", 2, CodeSyntaxDuplicateModifier},
		{"duplicate-exp", "v=spf1 exp=a.example -all exp=b.example", 3, CodeSyntaxDuplicateModifier},
		{"all-argument", "v=spf1 all:example.com", 1, CodeSyntaxArgument},
		{"ptr-cidr", "v=spf1 ptr/24", 1, CodeSyntaxArgument},
		{"include-cidr", "v=spf1 include/24", 1, CodeSyntaxArgument},
		{"single-label", "v=spf1 include:localhost", 1, CodeSyntaxDomainSpec},
		{"numeric-toplabel", "v=spf1 a:192.0.2.1", 1, CodeSyntaxDomainSpec},
		{"hyphen-toplabel", "v=spf1 a:example.-com", 1, CodeSyntaxDomainSpec},
		{"double-trailing-dot", "v=spf1 a:example.com..", 1, CodeSyntaxDomainSpec},
		{"cidr-on-include", "v=spf1 include:example.com/24", 1, CodeSyntaxDomainSpec},
		// doc/rfc-notes.md §3.5 #21.
		{"macro-letter", "v=spf1 exists:%{i}.%{x}.example -all", 1, CodeSyntaxMacro},
		{"macro-crt", "v=spf1 exists:%{c}.example.com", 1, CodeSyntaxMacro},
		{"macro-zero", "v=spf1 exists:%{d0}.example.com", 1, CodeSyntaxMacro},
		{"macro-unclosed", "v=spf1 exists:%{d.example.com", 1, CodeSyntaxMacro},
		{"macro-stray", "v=spf1 a:%x.example.com", 1, CodeSyntaxMacro},
		{"macro-trailing", "v=spf1 a:example.com%", 1, CodeSyntaxMacro},
		{"modifier-macro", "v=spf1 foo=%{q}", 1, CodeSyntaxMacro},
		{"modifier-name", "v=spf1 1foo=bar", 1, CodeSyntaxModifier},
		{"qualified-modifier", "v=spf1 -redirect=example.com", 1, CodeSyntaxModifier},
		{"empty-name", "v=spf1 =x", 1, CodeSyntaxModifier},
		{"qualifier-only", "v=spf1 -", 1, CodeSyntaxUnknownMechanism},
		// doc/rfc-notes.md §3.5 #27: syntax after all is still checked.
		{"garbage-after-all", "v=spf1 -all garbage!", 2, CodeSyntaxUnknownMechanism},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tc.in)
			var se *SyntaxError
			require.ErrorAs(t, err, &se, "Parse(%q) = %v, want a *SyntaxError wrapping ErrSyntax", tc.in, err)
			require.ErrorIs(t, err, ErrSyntax, "Parse(%q) = %v, want a *SyntaxError wrapping ErrSyntax", tc.in, err)
			require.Equal(t, tc.index, se.Index, "Parse(%q): index (%v)", tc.in, err)
			require.Equal(t, tc.code, se.Code, "Parse(%q): code (%v)", tc.in, err)
		})
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{
		"v=spf1 -all", "V=SPF1", "v=spf10 -all", " v=spf1 -all", "v=spf1\tmx",
		"spf2.0/pra -all", "google-site-verification=x", "v=spf1  mx",
	}
	want := []string{"v=spf1 -all", "V=SPF1", "v=spf1  mx"}
	require.Equal(t, want, Select(in), "Select")
	require.Nil(t, Select([]string{"x"}), "Select without SPF, want nil")
}

func TestExpandDomainSpec(t *testing.T) {
	t.Parallel()
	long := "a123456789b123456789c123456789d123456789e123456789f123456789"
	tests := []struct {
		spec, cur, sender string
		want              string
		ok                bool
	}{
		{"_spf.example.com.", "x.test", "y.test", "_spf.example.com", true},
		{"%{d}", "Mail.Example.COM", "y.test", "mail.example.com", true},
		{"%{o}._spf.%{d2}", "a.b.c.test", "sender.test", "sender.test._spf.c.test", true},
		{"%{dr}.rev.test", "a.b.c", "s", "c.b.a.rev.test", true},
		{"%{d1r}.x.test", "a.b.c", "s", "a.x.test", true},
		{"%{d-}.x.test", "a-b.c", "s", "a.b.c.x.test", true},
		{"%{D}.x.test", "a.b", "s", "a.b.x.test", true},
		{"%%.x.test", "a", "s", "%.x.test", true},
		// DIGIT transformers past the label count keep every part; a long
		// digit run saturates at maxMacroDigits instead of overflowing.
		{"%{d127}.x.test", "a.b.c", "s", "a.b.c.x.test", true},
		{"%{d1000r}.x.test", "a.b.c", "s", "c.b.a.x.test", true},
		{"%{d99999999999999999999999999}.x.test", "a.b.c", "s", "a.b.c.x.test", true},
		{"%{i}.x.test", "a", "s", "", false},
		{"%{l}.%{d}", "a", "s", "", false},
		// 5×61 + 8 = 313 octets: the left-most label goes (§4.8), 252 remain.
		{long + "." + long + "." + long + "." + long + "." + long + ".%{d}", "end.test", "s",
			long + "." + long + "." + long + "." + long + ".end.test", true},
	}
	for _, tc := range tests {
		got, ok := expandDomainSpec(tc.spec, tc.cur, tc.sender)
		assert.Equal(t, tc.want, got, "expandDomainSpec(%q, %q, %q)", tc.spec, tc.cur, tc.sender)
		assert.Equal(t, tc.ok, ok, "expandDomainSpec(%q, %q, %q) ok", tc.spec, tc.cur, tc.sender)
	}
}

// TestValidName: labels of dnsname.MaxLabelLength octets are valid,
// longer ones not; names of MaxDomainLength octets are valid, longer not.
func TestValidName(t *testing.T) {
	t.Parallel()
	l63 := strings.Repeat("a", 63)
	name253 := l63 + "." + l63 + "." + l63 + "." + strings.Repeat("b", 61)
	for name, want := range map[string]bool{
		l63 + ".test":   true,
		l63 + "a.test":  false,
		name253:         true,
		name253 + "b":   false,
		"example.com":   true,
		"example":       false,
		"a..test":       false,
		"bad name.test": false,
	} {
		assert.Equal(t, want, validName(name), "validName(%q)", name)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := Parse("v=spf1 ip4:192.0.2.0/33")
	require.EqualError(t, err, `spf: term 1 "ip4:192.0.2.0/33": invalid CIDR length`, "Error()")
}
