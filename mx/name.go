package mx

import (
	"net/netip"
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// IsIPLiteral reports whether an exchange name is an IP address written
// as a name: it parses as an address, or its last label is all digits,
// which no top-level domain is (RFC 1123 §2.1, doc/rfc-notes.md §2.2).
// Such an exchange is neither resolved by Check nor a mail server whose
// TLSA records a DANE check asks about.
func IsIPLiteral(name string) bool {
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
	return dnsname.IsLDHName(name)
}
