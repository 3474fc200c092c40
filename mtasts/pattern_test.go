package mtasts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidPattern(t *testing.T) {
	t.Parallel()
	valid := []string{"mail.example.com", "*.example.com", "MX1.Example.COM", "xn--bcher-kva.example", "localhost", "*.com", "a-b.c0", "1.2.3.4"}
	invalid := []string{"", "*", "*.", "mail.*.example.com", "*example.com", "*.*.example.com", "**.example.com",
		"bücher.example", "mail.example.com.", ".example.com", "-a.example", "a-.example", "a..example", "a_b.example",
		"mail example.com", strings.Repeat("a", 64) + ".example", strings.Repeat("a.", 127) + "ab"}
	for _, p := range valid {
		assert.True(t, ValidPattern(p), "ValidPattern(%q)", p)
	}
	for _, p := range invalid {
		assert.False(t, ValidPattern(p), "ValidPattern(%q)", p)
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
		assert.Equal(t, tc.want, p.Matches(tc.host), "Matches(%q)", tc.host)
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
		assert.Equal(t, tc.want, got, "%s: Covers", tc.name)
		assert.Equal(t, tc.all, got.All(), "%s: Covers(...).All()", tc.name)
	}
}
