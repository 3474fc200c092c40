package dnsname

import "strings"

// Limits of a host name in presentation form (RFC 1035 §2.3.4).
const (
	// MaxNameLength is the longest name, without the trailing dot.
	MaxNameLength = 253
	// MaxLabelLength is the longest label.
	MaxLabelLength = 63
)

// IsLDHName reports whether name is a non-empty host name of at most
// MaxNameLength octets whose every label satisfies IsLDHLabel. A trailing
// dot makes an empty last label, so it is not accepted.
func IsLDHName(name string) bool {
	if name == "" || len(name) > MaxNameLength {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if !IsLDHLabel(label) {
			return false
		}
	}
	return true
}

// IsLDHLabel reports whether label is 1 to MaxLabelLength letters, digits
// and hyphens that neither starts nor ends with a hyphen (RFC 5321 §4.1.2,
// RFC 1123 §2.1). Letters may be of either case.
func IsLDHLabel(label string) bool {
	if label == "" || len(label) > MaxLabelLength || label[0] == '-' || label[len(label)-1] == '-' {
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
