package mx

import (
	"strings"
	"testing"
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
		if got := isIPLiteral(tc.name); got != tc.want {
			t.Errorf("isIPLiteral(%q) = %v, want %v", tc.name, got, tc.want)
		}
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
		if got := isHostname(tc.name); got != tc.want {
			t.Errorf("isHostname(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
