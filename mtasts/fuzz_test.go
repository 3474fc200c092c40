package mtasts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		"v=STSv1; id=20240501T1200;",
		"v=STSv1;id=abc;ext=1",
		"v=STSv1 ;\tid=abc\t; ",
		"v=STSv1; id=2024-05-01",
		"v=STSv1; id=" + strings.Repeat("a", 33),
		"v=STSv1",
		"v=stsv1; id=abc",
		"v=STSv1;; id=abc",
		"v=STSv1; id=a; id=b; x.y_z-1=:<>",
		"v=STSv1; id=abc\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRecord(s)
		_ = IsRecord(s)
		if err != nil {
			return
		}
		require.True(t, validID(r.ID), "ParseRecord(%q) accepted %#v", s, r)
		require.NotEmpty(t, r.Fields, "ParseRecord(%q) accepted %#v", s, r)
		again, err := ParseRecord(r.String())
		require.NoError(t, err, "round trip of %q via %q", s, r.String())
		require.Equal(t, r, again, "round trip of %q via %q", s, r.String())
		require.True(t, IsRecord(r.String()), "IsRecord(%q) = false", r.String())
	})
}

func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		"version: STSv1\nmode: enforce\nmx: mail.example.com\nmax_age: 604800\n",
		"version: STSv1\r\nmode: testing\r\nmx: *.example.net\r\nmx: a.example\r\nmax_age: 0",
		"version: STSv1\nmode: none\nmax_age: 31557600\nx-ext: välue with spaces\n",
		"version: STSv1\nmode: enforce\nmax_age: 31557601\n",
		"version: STSv1\rmode: enforce\n",
		"mode: testing\nmode: enforce\n\n\nmx: bücher.example\n",
		"<html></html>",
		"max_age: 0000000000\nmx: *.\nmx: mail.*.example.com\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePolicy(s)
		if p.MaxAge != nil {
			require.GreaterOrEqual(t, *p.MaxAge, int64(0), "MaxAge %d out of range", *p.MaxAge)
			require.LessOrEqual(t, *p.MaxAge, int64(MaxMaxAge), "MaxAge %d out of range", *p.MaxAge)
		}
		if err != nil {
			return
		}
		require.Equal(t, Version, p.Version, "ParsePolicy(%q) accepted %#v", s, p)
		require.NotEmpty(t, p.Mode, "ParsePolicy(%q) accepted %#v", s, p)
		require.NotNil(t, p.MaxAge, "ParsePolicy(%q) accepted %#v", s, p)
		for _, mx := range p.MX {
			require.True(t, ValidPattern(mx), "valid policy with invalid pattern %q", mx)
		}
		again, err := ParsePolicy(p.String())
		require.NoError(t, err, "round trip of %q via %q", s, p.String())
		require.Equal(t, p, again, "round trip of %q via %q", s, p.String())
	})
}
