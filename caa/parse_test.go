package caa

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Property
		part string // the SyntaxError part expected, "" for success
	}{
		{in: `0 issue "letsencrypt.org"`, want: Property{0, "issue", "letsencrypt.org"}},
		{in: `128 tbs "x"`, want: Property{128, "tbs", "x"}},
		{in: "  0\tIssue   ca.example  ", want: Property{0, "Issue", "ca.example"}},
		{in: `0 issue ";"`, want: Property{0, "issue", ";"}},
		{in: `0 issue ""`, want: Property{0, "issue", ""}},
		{in: `0 iodef "mailto:a@b.example"`, want: Property{0, "iodef", "mailto:a@b.example"}},
		{in: `0 issue "a\"b\\c\009d"`, want: Property{0, "issue", "a\"b\\c\td"}},
		{in: `0 issue a\032b`, want: Property{0, "issue", "a b"}},
		{in: `0 issue "ca.example; accounturi=https://ca.example/acct/1"`, want: Property{0, "issue", "ca.example; accounturi=https://ca.example/acct/1"}},
		{in: `007 issue x`, want: Property{7, "issue", "x"}},
		{in: ``, part: "flags"},
		{in: `x issue "a"`, part: "flags"},
		{in: `256 issue "a"`, part: "flags"},
		{in: `-1 issue "a"`, part: "flags"},
		{in: `0`, part: "tag"},
		{in: `0 is-sue "a"`, part: "tag"},
		{in: `0 ` + strings.Repeat("a", 256) + ` "a"`, part: "tag"},
		{in: `0 issue`, part: "value"},
		{in: `0 issue "a`, part: "value"},
		{in: `0 issue "a" b`, part: "value"},
		{in: `0 issue a b`, part: "value"},
		{in: `0 issue "a\`, part: "value"},
		{in: `0 issue "\25"`, part: "value"},
		{in: `0 issue "\256"`, part: "value"},
		{in: "0 issue " + strings.Repeat("a", 65534), part: "value"},
	} {
		got, err := Parse(tc.in)
		if tc.part != "" {
			var se *SyntaxError
			if assert.ErrorAs(t, err, &se, "Parse(%q) = %+v, %v; want a %s syntax error", tc.in, got, err, tc.part) {
				assert.Equal(t, tc.part, se.Part, "Parse(%q): syntax error part", tc.in)
				assert.ErrorIs(t, err, ErrSyntax, "Parse(%q)", tc.in)
				assert.True(t, strings.HasPrefix(err.Error(), "caa: invalid "+tc.part+": "),
					"Parse(%q) = %+v, %v; want a %s syntax error", tc.in, got, err, tc.part)
			}
			continue
		}
		assert.NoError(t, err, "Parse(%q)", tc.in)
		assert.Equal(t, tc.want, got, "Parse(%q)", tc.in)
	}
}

func TestPropertyString(t *testing.T) {
	t.Parallel()
	p := Property{Flags: 128, Tag: "issue", Value: "a\"b\\c\td\xff"}
	assert.Equal(t, `128 issue "a\"b\\c\009d\255"`, p.String(), "String()")
	back, err := Parse(p.String())
	assert.NoError(t, err, "Parse(String())")
	assert.Equal(t, p, back, "Parse(String())")
}

func TestPropertyKnown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tag        string
		want       Tag
		known      bool
		understood bool
	}{
		{"issue", TagIssue, true, true},
		{"ISSUEWILD", TagIssueWild, true, true},
		{"IoDeF", TagIodef, true, true},
		{"issuemail", TagIssueMail, true, true},
		{"issuevmc", TagIssueVMC, true, true},
		{"contactemail", TagContactEmail, true, true},
		{"contactphone", TagContactPhone, true, true},
		{"path", TagPath, true, false},
		{"auth", TagAuth, true, false},
		{"policy", TagPolicy, true, false},
		{"tbs", "", false, false},
		{"is-sue", "", false, false},
	} {
		p := Property{Tag: tc.tag}
		got, known := p.Known()
		assert.Equal(t, tc.want, got, "%q: Known() tag", tc.tag)
		assert.Equal(t, tc.known, known, "%q: Known() known", tc.tag)
		assert.Equal(t, tc.understood, p.understood(), "%q: understood", tc.tag)
	}
	assert.True(t, (Property{Flags: 129}).Critical(), "Critical() must test bit 128 only")
	assert.False(t, (Property{Flags: 1}).Critical(), "Critical() must test bit 128 only")
}

func TestParseIssuerValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want IssuerValue
		part string
	}{
		{in: "letsencrypt.org", want: IssuerValue{Domain: "letsencrypt.org"}},
		{in: "  Ca.Example  ", want: IssuerValue{Domain: "ca.example", MixedCase: true}},
		{in: ";", want: IssuerValue{}},
		{in: "", want: IssuerValue{}},
		{in: " ; ", want: IssuerValue{}},
		{in: "ca.example;", want: IssuerValue{Domain: "ca.example"}},
		{in: "ca.example; accounturi=https://ca.example/acct/1",
			want: IssuerValue{Domain: "ca.example", Params: []Param{{"accounturi", "https://ca.example/acct/1"}}}},
		{in: "ca.example;a=1 ;\tvalidation-methods = dns-01,http-01 ",
			want: IssuerValue{Domain: "ca.example", Params: []Param{{"a", "1"}, {"validation-methods", "dns-01,http-01"}}}},
		{in: "; a=", want: IssuerValue{Params: []Param{{"a", ""}}}},
		{in: "a--b.example", want: IssuerValue{Domain: "a--b.example"}},
		{in: "%%%", part: "issuer"},
		{in: "letsencrypt.org.", part: "issuer"},
		{in: "-ca.example", part: "issuer"},
		{in: "ca-.example", part: "issuer"},
		{in: "ca..example", part: "issuer"},
		{in: "ca_x.example", part: "issuer"},
		{in: "ca.example other", part: "issuer"},
		{in: "ca.example; a", part: "parameter"},
		{in: "ca.example; =b", part: "parameter"},
		{in: "ca.example; -a=b", part: "parameter"},
		{in: "ca.example; a=b c", part: "parameter"},
		{in: "ca.example; a=b;", part: "parameter"},
		{in: "ca.example; a=b\x7f", part: "parameter"},
	} {
		got, err := ParseIssuerValue(tc.in)
		if tc.part != "" {
			var se *SyntaxError
			if assert.ErrorAs(t, err, &se, "ParseIssuerValue(%q) = %+v, %v; want a %s syntax error", tc.in, got, err, tc.part) {
				assert.Equal(t, tc.part, se.Part, "ParseIssuerValue(%q): syntax error part", tc.in)
				assert.ErrorIs(t, err, ErrSyntax, "ParseIssuerValue(%q)", tc.in)
			}
			continue
		}
		assert.NoError(t, err, "ParseIssuerValue(%q)", tc.in)
		assert.Equal(t, tc.want, got, "ParseIssuerValue(%q)", tc.in)
	}
}

func TestIssuerValueString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                         ";",
		" ; ":                      ";",
		"Ca.Example":               "ca.example",
		"ca.example ;a=1;b = 2":    "ca.example; a=1; b=2",
		";a=1":                     "; a=1",
		"ca.example; a=x=y":        "ca.example; a=x=y",
		"ca.example ; accounturi=": "ca.example; accounturi=",
	} {
		v, err := ParseIssuerValue(in)
		assert.NoError(t, err, "ParseIssuerValue(%q)", in)
		assert.Equal(t, want, v.String(), "ParseIssuerValue(%q).String()", in)
	}
}

func TestTrailingDot(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"letsencrypt.org.": true, " ca.example. ; a=b": true, "ca.example": false, "%%%.": false, ".": false,
	} {
		assert.Equal(t, want, trailingDot(in), "trailingDot(%q)", in)
	}
}

func TestValidIodef(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"mailto:security@example.com":  true,
		"MAILTO:security@example.com":  true,
		"https://iodef.example/report": true,
		"http://iodef.example":         true,
		"ftp://x.example":              false,
		"mailto:":                      false,
		"https://":                     false,
		"security@example.com":         false,
		"":                             false,
		"http://[::1":                  false,
	} {
		assert.Equal(t, want, validIodef(in), "validIodef(%q)", in)
	}
}
