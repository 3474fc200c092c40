package dmarc

import (
	"strings"
	"testing"
)

// TestSameOrganization: names sharing sameOrgSharedLabels trailing labels
// count as one organization; the heuristic errs towards "same".
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
		{"example.co.uk", "other.co.uk", true}, // multi-label suffix: treated as same (errs towards same)
	} {
		if got := sameOrganization(tc.a, tc.b); got != tc.want {
			t.Errorf("sameOrganization(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
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
		if _, got := hostName(name); got != want {
			t.Errorf("hostName(%q) ok = %v, want %v", name, got, want)
		}
	}
}
