package mx

import (
	"net/netip"
	"strings"
)

// Limits of a host name in presentation form (RFC 1035 §2.3.4).
const (
	maxNameLen  = 253
	maxLabelLen = 63
)

// isIPLiteral reports whether an exchange name is an IP address written
// as a name: it parses as an address, or its last label is all digits,
// which no top-level domain is (RFC 1123 §2.1, rfc-notes.md section 2.2).
func isIPLiteral(name string) bool {
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// isHostname reports whether name (lower-case, no trailing dot) is a
// letter-digit-hyphen host name (RFC 952, RFC 1123 §2.1, RFC 5321 §2.3.5):
// labels of 1 to 63 letters, digits and hyphens, neither starting nor
// ending with a hyphen, 253 octets in all.
func isHostname(name string) bool {
	if name == "" || len(name) > maxNameLen {
		return false
	}
	for _, label := range strings.Split(name, ".") {
		if !isLDHLabel(label) {
			return false
		}
	}
	return true
}

func isLDHLabel(label string) bool {
	if label == "" || len(label) > maxLabelLen || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
