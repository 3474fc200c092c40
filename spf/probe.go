package spf

import (
	"context"
	"strings"

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

// probeDomainSpec expands a valid domain-spec like expandDomainSpec, with
// the probe values for the macros that need sender data: %{i} the probe
// address, %{s} probeLocal@sender, %{l} probeLocal, %{h} and %{p}
// probeHelo, %{v} "in-addr". ok is false when the spec is not valid.
func probeDomainSpec(spec, cur, sender string) (name string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(spec); {
		c := spec[i]
		if c != '%' || i+1 >= len(spec) {
			b.WriteByte(c)
			i++
			continue
		}
		if spec[i+1] != '{' {
			b.WriteString(spec[i : i+2]) // %%, %_ and %- stay for expandDomainSpec
			i += 2
			continue
		}
		n, _, valid := scanMacroExpand(spec[i+2:])
		if !valid {
			return "", false
		}
		body := spec[i+2 : i+1+n]
		switch v := probeValue(body[0], sender); v {
		case "":
			b.WriteString(spec[i : i+2+n]) // %{d} and %{o}: expanded below
		default:
			b.WriteString(strings.ReplaceAll(transformMacro(body, v), "%", "%%"))
		}
		i += 2 + n
	}
	return expandDomainSpec(b.String(), cur, sender)
}

// probeValue is the probe value of a sender macro letter; "" for d and o,
// which expandDomainSpec expands.
func probeValue(letter byte, sender string) string {
	switch letter | 0x20 {
	case 'i':
		return probeIP
	case 's':
		return probeLocal + "@" + sender
	case 'l':
		return probeLocal
	case 'h', 'p':
		return probeHelo
	case 'v':
		return probeRevDom
	}
	return ""
}

// probeExists reports whether a +exists term whose name depends on the
// client matches the probe client: its name then exists for a client no
// policy lists (a wildcard), so it matches every client (RFC 7208 §5.7).
// It costs one A lookup, outside the SPF count.
func (w *walker) probeExists(ctx context.Context, domain string, t Term) bool {
	if t.Kind != KindExists || t.Qualifier != QualifierPass {
		return false
	}
	name, ok := probeDomainSpec(t.DomainSpec, domain, w.sender)
	if !ok || !validName(name) {
		return false
	}
	return w.r.Lookup(ctx, name, resolver.TypeA).Outcome == resolver.Found
}
