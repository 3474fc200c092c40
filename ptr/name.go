package ptr

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// isHostname reports whether name (lower-case, no trailing dot) is a valid
// host name to look up forward: at least two letter-digit-hyphen labels of
// 1 to 63 octets that neither start nor end with a hyphen, 253 octets in
// all, and a last label that is not all digits (RFC 952, RFC 1123 §2.1).
func isHostname(name string) bool {
	return strings.Contains(name, ".") && dnsname.IsLDHName(name) &&
		!allDigits(name[strings.LastIndexByte(name, '.')+1:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isLocalhost reports whether name is "localhost" or a name under it,
// which resolvers answer with loopback addresses (RFC 6761 §6.3).
func isLocalhost(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// isGeneric reports whether name embeds the four octets of an IPv4
// address, in either order, separated by hyphens or dots, or as twelve
// zero-padded digits ("198-51-100-7", "7.100.51.198", "198051100007"): the
// shape of generic names given to dynamic or pooled address space. It is
// a heuristic and never true for IPv6.
func isGeneric(name string, addr netip.Addr) bool {
	if !addr.Is4() {
		return false
	}
	b := addr.As4()
	fwd := []string{strconv.Itoa(int(b[0])), strconv.Itoa(int(b[1])), strconv.Itoa(int(b[2])), strconv.Itoa(int(b[3]))}
	rev := []string{fwd[3], fwd[2], fwd[1], fwd[0]}
	padded := func(o []string) string {
		var s strings.Builder
		for _, x := range o {
			s.WriteString(strings.Repeat("0", 3-len(x)) + x)
		}
		return s.String()
	}
	for _, tok := range []string{
		strings.Join(fwd, "-"), strings.Join(rev, "-"),
		strings.Join(fwd, "."), strings.Join(rev, "."),
		padded(fwd), padded(rev),
	} {
		if containsNumber(name, tok) {
			return true
		}
	}
	return false
}

// containsNumber reports whether tok occurs in s with no digit right
// before or after it, so that "1-2-3-4" is not found in "11-2-3-45".
func containsNumber(s, tok string) bool {
	for i := 0; i+len(tok) <= len(s); {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(tok)
		if (start == 0 || !isDigit(s[start-1])) && (end == len(s) || !isDigit(s[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
