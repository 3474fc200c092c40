package mtasts

import (
	"reflect"
	"strings"
	"testing"
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
		if !validID(r.ID) || len(r.Fields) == 0 {
			t.Fatalf("ParseRecord(%q) accepted %#v", s, r)
		}
		again, err := ParseRecord(r.String())
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip of %q via %q: %#v, %v", s, r.String(), again, err)
		}
		if !IsRecord(r.String()) {
			t.Fatalf("IsRecord(%q) = false", r.String())
		}
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
		if p.MaxAge != nil && (*p.MaxAge < 0 || *p.MaxAge > MaxMaxAge) {
			t.Fatalf("MaxAge %d out of range", *p.MaxAge)
		}
		if err != nil {
			return
		}
		if p.Version != Version || p.Mode == "" || p.MaxAge == nil {
			t.Fatalf("ParsePolicy(%q) accepted %#v", s, p)
		}
		for _, mx := range p.MX {
			if !ValidPattern(mx) {
				t.Fatalf("valid policy with invalid pattern %q", mx)
			}
		}
		again, err := ParsePolicy(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip of %q via %q: %#v, %v", s, p.String(), again, err)
		}
	})
}
