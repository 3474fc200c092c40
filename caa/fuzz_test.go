package caa

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics, that every error wraps
// ErrSyntax, and that String round-trips.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`0 issue "letsencrypt.org"`, `128 tbs "x"`, `0 issue ";"`, `0 iodef "mailto:a@b.example"`,
		`0 issue "ca.example; accounturi=https://ca.example/acct/1"`, `0 issue a\032b`,
		`0 issue "a\"b\\c\009d"`, `255 Issue ""`, `0 is-sue "a"`, `0 issue "a`, `1 issuewild x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			require.ErrorIs(t, err, ErrSyntax, "Parse(%q): error does not wrap ErrSyntax", s)
			return
		}
		back, err := Parse(p.String())
		require.NoError(t, err, "Parse(%q) = %+v; Parse(%q)", s, p, p.String())
		require.Equal(t, p, back, "Parse(%q) = %+v; Parse(%q)", s, p, p.String())
		_, _ = p.Known()
		_ = p.understood()
	})
}

// FuzzParseIssuerValue checks that ParseIssuerValue never panics, that
// every error wraps ErrSyntax, that String round-trips (to the
// lower-case form, so MixedCase is false after it), and the helpers
// that look at raw values never panic either.
func FuzzParseIssuerValue(f *testing.F) {
	for _, s := range []string{
		"letsencrypt.org", ";", "", " ; ", "ca.example; accounturi=https://ca.example/acct/1",
		"ca.example;a=1 ;\tb = 2", "%%%", "letsencrypt.org.", "ca.example; a=b;", "; a=",
		"mailto:security@example.com", "https://iodef.example/", "a--b.example",
		"LetsEncrypt.org", "Ca.Example; accounturi=X",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = trailingDot(s)
		_ = validIodef(s)
		v, err := ParseIssuerValue(s)
		if err != nil {
			require.ErrorIs(t, err, ErrSyntax, "ParseIssuerValue(%q): error does not wrap ErrSyntax", s)
			return
		}
		back, err := ParseIssuerValue(v.String())
		require.NoError(t, err, "ParseIssuerValue(%q) = %+v; ParseIssuerValue(%q)", s, v, v.String())
		require.False(t, back.MixedCase, "ParseIssuerValue(%q): canonical form %q is not lower case", s, v.String())
		v.MixedCase = false
		require.Equal(t, v, back, "ParseIssuerValue(%q) = %+v; ParseIssuerValue(%q)", s, v, v.String())
	})
}
