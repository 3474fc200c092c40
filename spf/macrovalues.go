package spf

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// unknownMacro is the value of %{p} when the client has no validated
// name, and of %{r} (the receiving host, which an evaluation here does
// not know) (RFC 7208 §7.3).
const unknownMacro = "unknown"

// macros returns the macro values of an evaluation whose current domain
// is domain (RFC 7208 §7.3). %{p} is computed on first use, with the
// lookups of §5.5; like every name from DNS it is used only to build
// names to query, never returned.
func (e *evaluator) macros(ctx context.Context, domain string) macroValue {
	return func(letter byte) (string, bool) {
		switch letter {
		case 's':
			return e.sender, true
		case 'l':
			return e.local, true
		case 'o':
			return e.senderDomain, true
		case 'd':
			return domain, true
		case 'i':
			return dottedIP(e.ip.String(), e.ip.Is4(), e.ip.As16()), true
		case 'p':
			return e.validatedName(ctx, domain), true
		case 'v':
			if e.ip.Is4() {
				return "in-addr", true
			}
			return "ip6", true
		case 'h':
			return e.helo, true
		case 'c':
			return e.ip.String(), true
		case 'r':
			return unknownMacro, true
		case 't':
			return strconv.FormatInt(time.Now().Unix(), 10), true
		}
		return "", false
	}
}

// dottedIP is %{i}: the dotted quad of an IPv4 address, or the 32
// nibbles of an IPv6 address separated by dots (RFC 7208 §7.3).
func dottedIP(v4 string, is4 bool, a [16]byte) string {
	if is4 {
		return v4
	}
	const hexdigits = "0123456789abcdef"
	var b strings.Builder
	for i, c := range a {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteByte(hexdigits[c>>4])
		b.WriteByte('.')
		b.WriteByte(hexdigits[c&0x0f])
	}
	return b.String()
}

// validatedName is %{p} (RFC 7208 §7.3): among the validated names of the
// client, domain itself, else a subdomain of it, else the first; "unknown"
// when there is none or a lookup fails. Only names that are valid DNS
// names qualify. The value is computed once per evaluation; the choice
// for a later current domain reuses the same validated names.
func (e *evaluator) validatedName(ctx context.Context, domain string) string {
	names, stopped := e.validatedNames(ctx)
	if stopped != nil && e.macroErr == nil {
		e.macroErr = stopped.err // the void limit: the evaluation ends after this expansion
	}
	best := ""
	for _, n := range names {
		switch {
		case !validName(n):
			continue
		case n == domain:
			return n
		case best == "" || !isSubdomain(best, domain) && isSubdomain(n, domain):
			best = n
		}
	}
	if best == "" {
		return unknownMacro
	}
	return best
}
