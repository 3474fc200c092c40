package spf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refParseTerm is parseTerm as it was before it read a term in one pass:
// the bytes checked, then a search for ':' or '/' and one for '=', the
// second search after a qualifier, and strings.EqualFold for the
// mechanism's name.
func refParseTerm(t *Term, s string) Code {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return CodeSyntaxCharacter
		}
	}
	end := strings.IndexAny(s, ":/")
	if eq := strings.IndexByte(s, '='); eq >= 0 && (end < 0 || end > eq) {
		return parseModifier(t, s[:eq], s[eq+1:])
	}
	t.Qualifier = QualifierPass
	switch s[0] {
	case '+', '-', '~', '?':
		t.Qualifier, s = Qualifier(s[:1]), s[1:]
	}
	if end = strings.IndexAny(s, ":/"); end < 0 {
		end = len(s)
	}
	name, arg := s[:end], s[end:]
	t.Kind = ""
	for _, k := range []Kind{KindAll, KindInclude, KindA, KindMX, KindPTR, KindIP4, KindIP6, KindExists} {
		if strings.EqualFold(name, string(k)) {
			t.Kind = k
		}
	}
	switch t.Kind {
	case KindAll:
		if arg != "" {
			return CodeSyntaxArgument
		}
		return ""
	case KindInclude, KindExists, KindPTR:
		return parseDomainArg(t, arg)
	case KindA, KindMX:
		return parseDualCIDRArg(t, arg)
	case KindIP4, KindIP6:
		return parseIPArg(t, arg)
	}
	return CodeSyntaxUnknownMechanism
}

// checkParseTerm fails t when parseTerm and refParseTerm disagree on s:
// the code and the whole Term.
func checkParseTerm(t *testing.T, s string) {
	t.Helper()
	if s == "" {
		return // a term is never empty (termReader)
	}
	var got, want Term
	gotCode, wantCode := parseTerm(&got, s), refParseTerm(&want, s)
	require.Equal(t, wantCode, gotCode, "code of %q", s)
	require.Equal(t, want, got, "term of %q", s)
}

// TestParseTermMatchesReference: every mechanism in any case, with and
// without a qualifier, arguments with ':', '/' and '=' in each order,
// modifiers, and bytes that are not printable.
func TestParseTermMatchesReference(t *testing.T) {
	terms := []string{
		"all", "-ALL", "+all:x", "~All/24", "?a", "a:example.com/24//64", "A/24", "mx", "-MX:mail.example.com",
		"ptr", "ptr:Example.com", "ip4:192.0.2.1", "IP4:192.0.2.1/24", "-ip4:192.0.2.1/33", "ip6:2001:db8::/32",
		"Ip6:2001:DB8::1/128", "~ip6:::1/0", "ip4:", "ip4", "include:_spf.example.com", "INCLUDE:x.example",
		"exists:%{i}.x.example", "EXISTS:%{ir}.%{l1r+-}._spf.%{d}", "redirect=_spf.example.com",
		"REDIRECT=x.example", "exp=explain.example", "foo=bar", "foo:bar=baz", "a=b:c", "=x", "+=x", "-:", "+/",
		"+", "-", "x", "inc", "includes:x.example", "ip5:1.2.3.4", "ipa:1.2.3.4", "\x01all", "all\x7f", "a:é.example",
		"K:x", "mX", "ſ", "ip4:1.2.3.4/", "ip4:1.2.3.4/024", "+include:/x", "+include:=x", "+a=b/c",
	}
	for _, s := range terms {
		checkParseTerm(t, s)
	}
}

// FuzzParseTerm: for any term, parseTerm and its former form agree.
func FuzzParseTerm(f *testing.F) {
	for _, s := range []string{"-ip4:192.0.2.1/24", "INCLUDE:x.example", "redirect=x.example", "a:b=c/24//64"} {
		f.Add(s)
	}
	f.Fuzz(checkParseTerm)
}
