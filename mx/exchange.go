package mx

import (
	"context"
	"net/netip"
	"sync"

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

// resolveAll resolves every name concurrently; the result is in the
// order of names.
func resolveAll(ctx context.Context, r resolver.Resolver, names []string) []host {
	hosts := make([]host, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		if i == len(names)-1 { // in this goroutine: one fewer stack waiting
			hosts[i] = resolveHost(ctx, r, name)
			break
		}
		wg.Go(func() { hosts[i] = resolveHost(ctx, r, name) })
	}
	wg.Wait()
	return hosts
}

// resolveHost looks up A and AAAA of one exchange, concurrently.
func resolveHost(ctx context.Context, r resolver.Resolver, name string) host {
	if isIPLiteral(name) {
		return host{state: stateIPLiteral}
	}
	a := lookupAddrs(ctx, r, name)
	h := evaluate(&a[0], &a[1])
	h.notHostname = !isHostname(name)
	return h
}

// lookupAddrs asks for A and AAAA of name concurrently.
func lookupAddrs(ctx context.Context, r resolver.Resolver, name string) *[2]resolver.Answer {
	a := new([2]resolver.Answer) // A, AAAA; on the heap: this frame is under the AAAA lookup
	var wg sync.WaitGroup
	wg.Go(func() { a[0] = r.Lookup(ctx, name, resolver.TypeA) })
	a[1] = r.Lookup(ctx, name, resolver.TypeAAAA)
	wg.Wait()
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
