package tlsrpt

import (
	"reflect"
	"testing"
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
		if len(r.RUA) == 0 || r.RUAFieldCount() == 0 || !IsRecord(r.String()) {
			t.Fatalf("Parse(%q) accepted %#v", s, r)
		}
		again, err := Parse(r.String())
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip of %q via %q: %#v, %v", s, r.String(), again, err)
		}
	})
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"mailto:a@example.com", "https://r.example.net/x", "http://x", "mailto:", "https:///", "%zz", "mailto:a@[192.0.2.1]", "mailto:a@[IPv6:2001:db8::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Classify(s)
		if k.Valid() != (k.code() == "") {
			t.Fatalf("Classify(%q) = %s: Valid and code disagree", s, k)
		}
	})
}
