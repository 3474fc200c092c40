package dmarc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSameOrganization: names are one organization when they share their
// Organizational Domain by the Public Suffix List, so two registrations
// under a multi-label suffix (.co.uk, .com.cn, .com.au) are two.
func TestSameOrganization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "reports.example.com", true},
		{"mail.example.com", "dmarc.example.com", true},
		{"example.com", "example.net", false},
		{"example.com", "other.com", false},
		{"com", "com", true},
		{"example.co.uk", "other.co.uk", false},
		{"example.co.uk", "reports.example.co.uk", true},
		{"shop.com.cn", "mail.com.cn", false},
		{"a.shop.com.au", "b.shop.com.au", true},
		{"shop.com.au", "shop.net.au", false},
		{"Example.COM.", "reports.example.com", true},
		{"co.uk", "example.co.uk", false}, // a public suffix is its own organization
		{"example", "shop.example", false},
		{"dmarc.test", "reports.dmarc.test", true}, // unlisted TLD: the default rule "*"
	} {
		assert.Equal(t, tc.want, sameOrganization(tc.a, tc.b), "sameOrganization(%q, %q)", tc.a, tc.b)
	}
}

// TestHostNameLimits: labels up to dnsname.MaxLabelLength and names up to
// dnsname.MaxNameLength octets (one trailing dot not counted) are hosts.
func TestHostNameLimits(t *testing.T) {
	t.Parallel()
	l63 := strings.Repeat("a", 63)
	name253 := l63 + "." + l63 + "." + l63 + "." + strings.Repeat("b", 61)
	for name, want := range map[string]bool{
		l63 + ".example":  true,
		l63 + "a.example": false,
		name253:           true,
		name253 + ".":     true,
		name253 + "b":     false,
		"-bad.example":    false,
	} {
		_, got := hostName(name)
		assert.Equal(t, want, got, "hostName(%q) ok", name)
	}
}
