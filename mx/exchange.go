package mx

import (
	"context"
	"net/netip"
	"slices"

	"github.com/mailauth/mailauth/internal/ipclass"
	"github.com/mailauth/mailauth/resolver"
)

// state is what an exchange's address lookups showed.
type state int

const (
	stateUsable       state = iota // at least one public address
	stateNotPublic                 // addresses, none public, both lookups conclusive
	stateNXDomain                  // the name does not exist
	stateNoAddress                 // the name exists without A or AAAA
	stateInconclusive              // no public address and a lookup was inconclusive
	stateIPLiteral                 // an IP address written as a name; not resolved
)

// host holds the facts about one exchange.
type host struct {
	state       state
	alias       bool
	notHostname bool
	ipv6Only    bool
	duplicated  bool
}

// resolveAll resolves every name concurrently: it begins the A and AAAA
// lookups of all of them, then waits for and evaluates each in turn, all
// in the caller's goroutine. The result is in the order of names.
func resolveAll(ctx context.Context, r resolver.Resolver, names []string) []host {
	pending := make([]*[2]*resolver.Pending, len(names))
	for i, name := range names {
		if !IsIPLiteral(name) {
			pending[i] = beginAddrs(ctx, r, name)
		}
	}
	hosts := make([]host, len(names))
	for i, name := range names {
		hosts[i] = resolveHost(name, pending[i])
	}
	return hosts
}

// AddressNames returns the names whose A and AAAA records Check asks
// once its MX question for domain (canonical) has answer a: the
// exchanges it resolves ([Resolved] of [Exchanges]) when a is Found, the
// domain itself (an implicit MX) when it is NoData, none otherwise. A
// caller that asks them before Check runs (the scan's first questions)
// asks what Check will.
func AddressNames(domain string, a resolver.Answer) []string {
	switch a.Outcome {
	case resolver.Found:
		return Resolved(Exchanges(a.Records))
	case resolver.NoData:
		return []string{domain}
	}
	return nil
}

// Resolved returns the exchanges of names (Result.Exchanges of an
// explicit MX) that Check resolves and that are mail servers a sender
// connects to: the first MaxExchanges, IP literals left out. Without a
// literal among them, the result shares names' array.
func Resolved(names []string) []string {
	names = names[:min(len(names), MaxExchanges)]
	if !slices.ContainsFunc(names, IsIPLiteral) {
		return names
	}
	return slices.DeleteFunc(slices.Clone(names), IsIPLiteral)
}

// resolveHost evaluates one exchange from its A and AAAA lookups p
// (nil for an IP literal, which is not resolved), once they are in.
func resolveHost(name string, p *[2]*resolver.Pending) host {
	if p == nil {
		return host{state: stateIPLiteral}
	}
	a := waitAddrs(p)
	h := evaluate(&a[0], &a[1])
	h.notHostname = !isHostname(name)
	return h
}

// lookupAddrs asks for A and AAAA of name concurrently, and returns the
// answers once both are in.
func lookupAddrs(ctx context.Context, r resolver.Resolver, name string) *[2]resolver.Answer {
	return waitAddrs(beginAddrs(ctx, r, name))
}

// beginAddrs begins the A and AAAA lookups of name.
func beginAddrs(ctx context.Context, r resolver.Resolver, name string) *[2]*resolver.Pending {
	return &[2]*resolver.Pending{
		resolver.Begin(ctx, r, name, resolver.TypeA),
		resolver.Begin(ctx, r, name, resolver.TypeAAAA),
	}
}

// waitAddrs waits for the lookups beginAddrs began: A, then AAAA. The
// answers are on the heap: this frame is under the lookups.
func waitAddrs(p *[2]*resolver.Pending) *[2]resolver.Answer {
	a := new([2]resolver.Answer)
	a[0] = p[0].Wait()
	a[1] = p[1].Wait()
	return a
}

// evaluate classifies an exchange from its A and AAAA answers. Only
// conclusive answers make an exchange unusable (doc/design.md §2).
func evaluate(a4, a6 *resolver.Answer) host {
	h := host{
		alias:    len(a4.CNAMEs)+len(a6.CNAMEs) > 0,
		ipv6Only: a4.Absent() && a6.Outcome == resolver.Found,
	}
	addrs := append(a4.Addrs(), a6.Addrs()...)
	switch {
	case anyPublic(addrs):
		h.state = stateUsable
	case !a4.Conclusive() || !a6.Conclusive():
		h.state = stateInconclusive
	case len(addrs) > 0:
		h.state = stateNotPublic
	case a4.Outcome == resolver.NXDomain || a6.Outcome == resolver.NXDomain:
		h.state = stateNXDomain
	default:
		h.state = stateNoAddress
	}
	return h
}

// anyPublic reports whether one of addrs is public (doc/rfc-notes.md
// §10).
func anyPublic(addrs []netip.Addr) bool {
	for _, a := range addrs {
		if ipclass.IsPublic(a) {
			return true
		}
	}
	return false
}
