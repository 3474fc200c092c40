package dmarc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics, that its only error is a
// version-tag SyntaxError, that Select and Parse agree, and that
// String round-trips: Parse(r.String()) equals r.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"v=DMARC1; p=reject; rua=mailto:d@example.com",
		"v=DMARC1; p=reject; sp=quarantine; np=reject; psd=y; t=y; adkim=s; aspf=s; fo=0:d:s",
		"V = DMARC1 ; P = REJECT ; ; junk ; =x",
		"v=DMARC1; rua=mailto:d@example.com!10m, https://r.example.net/x , bad",
		"v=DMARC1; ruf=mailto:%22a%20b%22@[192.0.2.1]; fo=1",
		"v=DMARC1; p=reject; pct=0; rf=afrf; ri=3600; foo=bar; p=none",
		"v=DMARC1;\tp=\tnone\t;",
		"v=DMARC1; p=reject\x00; rua=\xff",
		"p=reject; v=DMARC1",
		"v=DMARC1; P=reject; Sp=none; rua=mailto:, mailto:?subject=x",
		"v=dmarc1",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		selected := len(Select([]string{s})) == 1
		require.Equal(t, err == nil, selected, "Select and Parse disagree on %q: selected %v, err %v", s, selected, err)
		if err != nil {
			var se *SyntaxError
			require.ErrorIs(t, err, ErrSyntax, "Parse(%q): unexpected error type %T", s, err)
			require.ErrorAs(t, err, &se, "Parse(%q): unexpected error type %T", s, err)
			return
		}
		again, err := Parse(r.String())
		require.NoError(t, err, "Parse(String()) of %q via %q", s, r.String())
		require.Equal(t, r, again, "round trip of %q via %q", s, r.String())
		for _, u := range append(r.RUA, r.RUF...) {
			if !u.Valid {
				require.Empty(t, u.Scheme, "invalid URI %q has scheme or host", u.Raw)
				require.Empty(t, u.Host, "invalid URI %q has scheme or host", u.Raw)
			}
		}
	})
}

// FuzzLooksLikeDMARC: looksLikeDMARC, which reads the text in place,
// answers as its definition does: "v=dmarc1" in the text lower-cased
// with its spaces and tabs taken out.
func FuzzLooksLikeDMARC(f *testing.F) {
	for _, s := range []string{
		"v=DMARC1; p=reject", "V = D M A R C 1", "v\t=dmarc 1", "vv=dmarc1", "v=dmarc", "v=dmarc2 v=dmarc1",
		"x v=dmarK1", "ＶＶ=DMARC1", "İv=DMARC1", "v=\u212adMARC1", "\xffv=DMARC1\xff", "v=dmarc\n1", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Contains(strings.ToLower(strings.NewReplacer(" ", "", "\t", "").Replace(s)), "v=dmarc1")
		require.Equal(t, want, looksLikeDMARC(s), "%q", s)
	})
}
