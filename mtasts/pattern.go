package mtasts

import (
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// ValidPattern reports whether s is a valid mx pattern (RFC 8461 §3.2,
// §4.1): an RFC 5321 domain of letter-digit-hyphen labels (A-labels only,
// no trailing dot), optionally preceded by "*." as the whole left-most
// label. Letters may be of either case.
func ValidPattern(s string) bool {
	return dnsname.IsLDHName(strings.TrimPrefix(s, "*."))
}

// Matches reports whether the MX host name host matches one of p's valid
// mx patterns (RFC 8461 §4.1): equal to the pattern, or, for a pattern
// "*.suffix", exactly one label followed by ".suffix". Names compare
// case-insensitively; a trailing dot on host is ignored. Invalid patterns
// match nothing, and neither does the empty name of a null MX.
func (p Policy) Matches(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return false
	}
	for _, pat := range p.MX {
		if ValidPattern(pat) && matchPattern(strings.ToLower(pat), host) {
			return true
		}
	}
	return false
}

// matchPattern matches a lower-case valid pattern against a lower-case
// host name.
func matchPattern(pat, host string) bool {
	suffix, wild := strings.CutPrefix(pat, "*.")
	if !wild {
		return pat == host
	}
	label, rest, ok := strings.Cut(host, ".")
	return ok && label != "" && rest == suffix
}

// Coverage counts how many distinct MX hosts a policy covers.
type Coverage struct {
	// Covered is the number of distinct MX hosts that match a pattern.
	Covered int
	// Uncovered is the number of distinct MX hosts that match none. In
	// enforce mode senders will not deliver to them (§5).
	Uncovered int
}

// All reports whether there was at least one MX host and every one is
// covered.
func (c Coverage) All() bool { return c.Covered > 0 && c.Uncovered == 0 }

// Covers matches the MX host names of a domain against p (RFC 8461 §4.1).
// The caller passes the exchanges it already looked up; when the domain
// has no MX RRset, it passes the domain itself (the implicit MX). Hosts are
// compared case-insensitively without a trailing dot, and each distinct
// name counts once. Covers does no I/O.
func Covers(p Policy, mxHosts []string) Coverage {
	var c Coverage
	seen := make(map[string]bool, len(mxHosts))
	for _, h := range mxHosts {
		key := strings.ToLower(strings.TrimSuffix(h, "."))
		if seen[key] {
			continue
		}
		seen[key] = true
		if p.Matches(key) {
			c.Covered++
		} else {
			c.Uncovered++
		}
	}
	return c
}
