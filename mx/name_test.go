package mx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsIPLiteral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"192.0.2.7", true},
		{"2001:db8::1", true},
		{"mx.example.123", true},
		{"10", true},
		{"mx1.example.com", false},
		{"1mx.example.com", false},
		{"123.example.com", false},
		{"", false},
		{"example.", false},
	} {
		assert.Equal(t, tc.want, IsIPLiteral(tc.name), "IsIPLiteral(%q)", tc.name)
	}
}

func TestIsHostname(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"mx1.example.com", true},
		{"xn--bcher-kva.example", true},
		{"a-b.example", true},
		{"MX.Example.COM", true},
		{"mx_1.example.com", false},
		{"-mx.example.com", false},
		{"mx-.example.com", false},
		{"mx..example.com", false},
		{"mx example.com", false},
		{`mx\032.example.com`, false},
		{"", false},
		{strings.Repeat("a", 64) + ".example", false},
		{strings.Repeat("a", 63) + ".example", true},
		{strings.Repeat("abcdefg.", 32) + "com", false},
	} {
		assert.Equal(t, tc.want, isHostname(tc.name), "isHostname(%q)", tc.name)
	}
}

// TestResolved: the exchanges Check resolves are the first MaxExchanges,
// IP literals left out, and the names given are not changed.
func TestResolved(t *testing.T) {
	names := []string{"mx1.example", "192.0.2.1", "mx2.example"}
	for i := range MaxExchanges {
		names = append(names, fmt.Sprintf("more%d.example", i))
	}
	got := Resolved(names)
	assert.Equal(t, MaxExchanges-1, len(got), "the first %d, the literal left out: %q", MaxExchanges, got)
	assert.Equal(t, []string{"mx1.example", "mx2.example", "more0.example"}, got[:3])
	assert.Equal(t, "192.0.2.1", names[1], "the names given are unchanged")
	assert.Equal(t, []string{"a.example", "b.example"}, Resolved([]string{"a.example", "b.example"}))
}
