package mtasts

import (
	"strings"
	"testing"
)

func TestValidPattern(t *testing.T) {
	t.Parallel()
	valid := []string{"mail.example.com", "*.example.com", "MX1.Example.COM", "xn--bcher-kva.example", "localhost", "*.com", "a-b.c0", "1.2.3.4"}
	invalid := []string{"", "*", "*.", "mail.*.example.com", "*example.com", "*.*.example.com", "**.example.com",
		"bücher.example", "mail.example.com.", ".example.com", "-a.example", "a-.example", "a..example", "a_b.example",
		"mail example.com", strings.Repeat("a", 64) + ".example", strings.Repeat("a.", 127) + "ab"}
	for _, p := range valid {
		if !ValidPattern(p) {
			t.Errorf("ValidPattern(%q) = false", p)
		}
	}
	for _, p := range invalid {
		if ValidPattern(p) {
			t.Errorf("ValidPattern(%q) = true", p)
		}
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	p := Policy{MX: []string{"mail.example.com", "*.Example.NET", "bad.*.example.org"}}
	tests := []struct {
		host string
		want bool
	}{
		{"mail.example.com", true},
		{"MAIL.example.com.", true},
		{"example.com", false},
		{"x.mail.example.com", false},
		{"mx1.example.net", true},
		{"example.net", false},
		{"a.b.example.net", false},
		{".example.net", false},
		{"bad.x.example.org", false},
		{"", false},
		{".", false},
	}
	for _, tc := range tests {
		if got := p.Matches(tc.host); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	p := Policy{MX: []string{"mail.example.com", "*.example.net"}}
	tests := []struct {
		name  string
		hosts []string
		want  Coverage
		all   bool
	}{
		{"all", []string{"mail.example.com", "mx1.example.net", "MX2.example.net."}, Coverage{Covered: 3}, true},
		{"deep-wildcard", []string{"mail.example.com", "a.b.example.net"}, Coverage{Covered: 1, Uncovered: 1}, false},
		{"duplicates", []string{"mail.example.com", "Mail.Example.com.", "mail.example.com"}, Coverage{Covered: 1}, true},
		{"implicit-mx", []string{"example.com"}, Coverage{Uncovered: 1}, false},
		{"null-mx", []string{""}, Coverage{Uncovered: 1}, false},
		{"none", nil, Coverage{}, false},
	}
	for _, tc := range tests {
		got := Covers(p, tc.hosts)
		if got != tc.want || got.All() != tc.all {
			t.Errorf("%s: Covers = %+v (All %v), want %+v (All %v)", tc.name, got, got.All(), tc.want, tc.all)
		}
	}
}
