package tlsrpt

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// Kind classifies one rua URI.
type Kind string

// Destination kinds. Only KindMailto and KindHTTPS can receive reports.
const (
	KindMailto        Kind = "mailto"         // a valid mailto: URI with one address (RFC 6068)
	KindHTTPS         Kind = "https"          // a valid absolute https: URL (RFC 8460 §3)
	KindHTTP          Kind = "http"           // an http: URL: not allowed
	KindInvalidScheme Kind = "invalid_scheme" // no scheme, or another scheme
	KindBadMailto     Kind = "bad_mailto"     // mailto: without a valid address
	KindBadHTTPS      Kind = "bad_https"      // https: without a valid host
)

// Valid reports whether k can receive reports.
func (k Kind) Valid() bool { return k == KindMailto || k == KindHTTPS }

// code returns the finding for an invalid kind.
func (k Kind) code() Code {
	switch k {
	case KindHTTP:
		return CodeHTTPNotAllowed
	case KindInvalidScheme:
		return CodeInvalidScheme
	case KindBadMailto:
		return CodeInvalidMailto
	case KindBadHTTPS:
		return CodeInvalidHTTPS
	}
	return ""
}

// Classify tells what kind of destination a rua URI is (RFC 8460 §3).
// Schemes compare case-insensitively. A URI with a character outside
// visible ASCII, or with "!" (which RFC 8460 §3 requires to be
// percent-encoded), is invalid.
func Classify(uri string) Kind {
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok || !validScheme(scheme) {
		return KindInvalidScheme
	}
	clean := !strings.ContainsRune(rest, '!') && visibleASCII(rest)
	switch strings.ToLower(scheme) {
	case "mailto":
		if clean && validMailto(rest) {
			return KindMailto
		}
		return KindBadMailto
	case "https":
		if clean && validHTTPS(uri) {
			return KindHTTPS
		}
		return KindBadHTTPS
	case "http":
		return KindHTTP
	}
	return KindInvalidScheme
}

// validScheme reports whether s is ALPHA *( ALPHA / DIGIT / "+" / "-" /
// "." ) (RFC 3986 §3.1).
func validScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// validMailto checks the part after "mailto:": exactly one addr-spec,
// percent-decoded, whose domain is a host name or an address literal,
// optionally followed by "?" header fields (RFC 6068 §2).
func validMailto(s string) bool {
	to, _, _ := strings.Cut(s, "?")
	addr, err := url.PathUnescape(to)
	if err != nil {
		return false
	}
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 {
		return false
	}
	domain := addr[at+1:]
	return validLocalPart(addr[:at]) && (validHostname(domain) || validAddressLiteral(domain))
}

// validAddressLiteral reports whether s is an RFC 5321 §4.1.3 address
// literal, which an RFC 6068 mailto domain may be ("[" *dtext "]"): a
// dotted-quad IPv4 address, or "IPv6:" and an IPv6 address, in brackets.
func validAddressLiteral(s string) bool {
	if len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return false
	}
	inner := s[1 : len(s)-1]
	if len(inner) > 5 && strings.EqualFold(inner[:5], "IPv6:") {
		a, err := netip.ParseAddr(inner[5:])
		return err == nil && a.Is6() && !a.Is4In6() && a.Zone() == ""
	}
	a, err := netip.ParseAddr(inner)
	return err == nil && a.Is4()
}

// validLocalPart accepts an RFC 5322 dot-atom or a quoted string.
func validLocalPart(s string) bool {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return visibleASCII(s)
	}
	for atom := range strings.SplitSeq(s, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			if !isAtext(atom[i]) {
				return false
			}
		}
	}
	return true
}

// validHTTPS checks an absolute https URL with a host name or an IP
// literal, and no user information.
func validHTTPS(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return validHostname(host)
}

// validHostname reports whether s is a domain name of at least two
// letter-digit-hyphen labels (RFC 5321 §4.1.2), without a trailing dot.
func validHostname(s string) bool {
	return strings.Contains(s, ".") && dnsname.IsLDHName(s)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// isAtext reports whether c is RFC 5322 atext.
func isAtext(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
