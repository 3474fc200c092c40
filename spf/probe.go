package spf

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
)

// Probe values for the sender macros (RFC 7208 §7.3), used to ask whether
// an exists mechanism that depends on the client matches every client: a
// policy never lists these, so a name built from them exists only through
// a wildcard (or a catch-all server), and then every client matches.
const (
	probeIP     = "192.0.2.1" // TEST-NET-1 (RFC 5737): no policy authorizes it
	probeLocal  = "mailauth-probe"
	probeHelo   = "mailauth-probe.invalid" // RFC 2606 reserved name
	probeRevDom = "in-addr"                // %{v} for an IPv4 client
)

// probeDomainSpec expands a valid domain-spec with %{d} = cur, %{o} =
// sender and the probe values for the macros that need sender data: %{i}
// the probe address, %{s} probeLocal@sender, %{l} probeLocal, %{h} and
// %{p} probeHelo, %{v} "in-addr". ok is false when the spec is not valid.
func probeDomainSpec(spec, cur, sender string) (name string, ok bool) {
	known := scanMacros(cur, sender)
	return expandName(spec, func(letter byte) (string, bool) {
		switch letter {
		case 'i':
			return probeIP, true
		case 's':
			return probeLocal + "@" + sender, true
		case 'l':
			return probeLocal, true
		case 'h', 'p':
			return probeHelo, true
		case 'v':
			return probeRevDom, true
		}
		return known(letter)
	})
}

// probeExists reports whether a +exists term whose name depends on the
// client matches the probe client: its name then exists for a client no
// policy lists (a wildcard), so it matches every client (RFC 7208 §5.7).
// It costs one A lookup, outside the SPF count (but within the scan's
// query budget); at most one per counted term.
func (w *walker) probeExists(ctx context.Context, domain string, t Term) bool {
	if t.Kind != KindExists || t.Qualifier != QualifierPass {
		return false
	}
	name, ok := probeDomainSpec(t.DomainSpec, domain, w.sender)
	if !ok || !validDomain(name) {
		return false
	}
	// %{s} puts an "@" in a label: a legal octet (RFC 2181 §11) that the
	// presentation form escapes, as Evaluate asks for such names.
	return w.r.Lookup(ctx, presentationName(name), resolver.TypeA).Outcome == resolver.Found
}
