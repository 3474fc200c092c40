package tlsrpt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"v=TLSRPTv1; rua=mailto:tlsrpt@example.com",
		"v=TLSRPTv1;rua=https://rep.example.net/tlsrpt",
		"v=TLSRPTv1; rua=mailto:a@example.com, https://r.example.net/x",
		"v=TLSRPTv1; rua=mailto:a@example.com; rua=mailto:b@example.com; foo=bar;",
		"v=TLSRPTv1 ; rua=mailto:a@example.com,bad ; ",
		"v=TLSRPTv1; rua=mailto:a@example.com;x",
		"v=TLSRPTv1",
		"v=tlsrptv1; rua=mailto:a@example.com",
		"v=TLSRPTv1; rua=mailto:tls%2Brpt@example.com?subject=x,http://r.example.net/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		for _, u := range r.RUA {
			_ = Classify(u)
		}
		if err != nil {
			return
		}
		require.NotEmpty(t, r.RUA, "Parse(%q) accepted %#v", s, r)
		require.NotZero(t, r.RUAFieldCount(), "Parse(%q) accepted %#v", s, r)
		require.True(t, IsRecord(r.String()), "Parse(%q) accepted %#v", s, r)
		again, err := Parse(r.String())
		require.NoError(t, err, "round trip of %q via %q", s, r.String())
		require.Equal(t, r, again, "round trip of %q via %q", s, r.String())
	})
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"mailto:a@example.com", "https://r.example.net/x", "http://x", "mailto:", "https:///", "%zz", "mailto:a@[192.0.2.1]", "mailto:a@[IPv6:2001:db8::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Classify(s)
		require.Equal(t, k.code() == "", k.Valid(), "Classify(%q) = %s: Valid and code disagree", s, k)
	})
}
