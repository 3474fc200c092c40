package caa

import (
	"errors"
	"reflect"
	"testing"
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
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		back, err := Parse(p.String())
		if err != nil || back != p {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v, %v", s, p, p.String(), back, err)
		}
		_, _ = p.Known()
		_ = p.understood()
	})
}

// FuzzParseIssuerValue checks that ParseIssuerValue never panics, that
// every error wraps ErrSyntax, that String round-trips, and the helpers
// that look at raw values never panic either.
func FuzzParseIssuerValue(f *testing.F) {
	for _, s := range []string{
		"letsencrypt.org", ";", "", " ; ", "ca.example; accounturi=https://ca.example/acct/1",
		"ca.example;a=1 ;\tb = 2", "%%%", "letsencrypt.org.", "ca.example; a=b;", "; a=",
		"mailto:security@example.com", "https://iodef.example/", "a--b.example",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = trailingDot(s)
		_ = validIodef(s)
		v, err := ParseIssuerValue(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseIssuerValue(%q): error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		back, err := ParseIssuerValue(v.String())
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("ParseIssuerValue(%q) = %+v; ParseIssuerValue(%q) = %+v, %v", s, v, v.String(), back, err)
		}
	})
}
