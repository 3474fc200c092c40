package dmarc

import (
	"net/url"
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// parseURI checks one DMARC reporting URI (RFC 9989 §4.8 dmarc-uri and
// obs-dmarc-uri): an absolute RFC 3986 URI in which "," and "!" are
// percent-encoded, optionally followed by the obsolete "!size" suffix.
// mailto URIs (RFC 6068) must name valid addresses, or none at all
// (NoAddress), and http(s) URIs a host; other schemes are checked for
// generic syntax only.
func parseURI(raw string) URI {
	u := URI{Raw: raw}
	s := raw
	if i := strings.LastIndexByte(s, '!'); i >= 0 && sizeSuffix(s[i+1:]) {
		s, u.SizeLimit = s[:i], true
	}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || !validScheme(scheme) || !uriChars(rest) {
		return u
	}
	scheme = strings.ToLower(scheme)
	host, ok := "", true
	switch scheme {
	case "mailto":
		host, u.NoAddress, ok = mailtoHost(rest)
	case "http", "https":
		host, ok = httpHost(rest)
	}
	if !ok {
		return u
	}
	u.Valid, u.Scheme, u.Host = true, scheme, host
	return u
}

// sizeSuffix reports whether s (after the "!") is 1*DIGIT [k/m/g/t].
func sizeSuffix(s string) bool {
	if n := len(s); n > 1 && strings.ContainsRune("kmgtKMGT", rune(s[n-1])) {
		s = s[:n-1]
	}
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// validScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 §3.1).
func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// uriChars reports whether s uses only characters an RFC 3986 URI may
// contain after the scheme, with valid percent-encodings, and without
// the "," and "!" that DMARC requires to be encoded.
func uriChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case isLetter(c), isDigit(c), strings.IndexByte("-._~$&'()*+;=:@/?#[]", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// mailtoHost checks the addresses of a mailto URI (RFC 6068 §2) and
// returns the domain of the first one. A URI without addresses is valid
// (mailtoURI = "mailto:" [ to ] [ hfields ]): none reports it.
func mailtoHost(rest string) (host string, none, ok bool) {
	to, _, _ := strings.Cut(rest, "?")
	decoded, err := url.PathUnescape(to)
	if err != nil {
		return "", false, false
	}
	if to == "" {
		return "", true, true
	}
	var first string
	for i, addr := range strings.Split(decoded, ",") {
		host, ok := addrSpecHost(addr)
		if !ok {
			return "", false, false
		}
		if i == 0 {
			first = host
		}
	}
	return first, false, true
}

// addrSpecHost checks local-part "@" domain (RFC 5322 §3.4.1) and returns
// the lower-case domain, or "" for an address literal.
func addrSpecHost(addr string) (string, bool) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return "", false
	}
	local, domain := addr[:at], addr[at+1:]
	if !validLocal(local) {
		return "", false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") && len(domain) > 2 {
		return "", true
	}
	return hostName(domain)
}

// validLocal accepts a dot-atom or a quoted string (RFC 5322 §3.4.1).
func validLocal(s string) bool {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return true
	}
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !isDigit(c) && strings.IndexByte(".!#$%&'*+-/=?^_`{|}~", c) < 0 {
			return false
		}
	}
	return true
}

// httpHost checks that an http(s) URI has an authority with a host
// (RFC 3986 §3.2) and returns the lower-case host name, or "" for an IP
// literal.
func httpHost(rest string) (string, bool) {
	if !strings.HasPrefix(rest, "//") {
		return "", false
	}
	authority := rest[2:]
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		return "", end > 1 && validPort(authority[end+1:])
	}
	host := authority
	if i := strings.LastIndexByte(authority, ':'); i >= 0 {
		if !validPort(authority[i:]) {
			return "", false
		}
		host = authority[:i]
	}
	return hostName(host)
}

// validPort accepts "" or ":" *DIGIT (RFC 3986 §3.2.3).
func validPort(s string) bool {
	if s == "" {
		return true
	}
	return s[0] == ':' && strings.Trim(s[1:], "0123456789") == ""
}

// hostName checks a DNS host name (letters, digits, hyphens; labels of
// 1..dnsname.MaxLabelLength octets; at most dnsname.MaxNameLength octets,
// RFC 1035 §2.3.4; one trailing dot allowed) and returns it lower-cased
// without the dot.
func hostName(s string) (string, bool) {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > dnsname.MaxNameLength {
		return "", false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > dnsname.MaxLabelLength || label[0] == '-' || label[len(label)-1] == '-' {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isLetter(c) && !isDigit(c) && c != '-' {
				return "", false
			}
		}
	}
	return strings.ToLower(s), true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}
