package spf

import (
	"errors"
	"reflect"
	"testing"
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
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || !se.Code.isSyntax() {
				t.Fatalf("Parse(%q): error %v is not a *SyntaxError", s, err)
			}
			return
		}
		text := r.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q fails: %v", s, text, err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip of %q via %q:\n got %#v\nwant %#v", s, text, again, r)
		}
	})
}
