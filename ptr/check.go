package ptr

import (
	"context"
	"net/netip"
	"sort"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// Question returns the name whose PTR records Check asks for addr (its
// zone ignored, an IPv4-mapped IPv6 address as IPv4), and false for an
// invalid address, which Check does not look up.
func Question(addr netip.Addr) (string, bool) {
	addr = plain(addr)
	if !addr.IsValid() {
		return "", false
	}
	return resolver.ReverseName(addr), true
}

// plain is addr as Check and Question take it: without its zone, and an
// IPv4-mapped IPv6 address as IPv4.
func plain(addr netip.Addr) netip.Addr { return addr.Unmap().WithZone("") }

// Check looks up the PTR records of addr and confirms them forward. Any
// zone of addr is ignored and an IPv4-mapped IPv6 address is checked as
// IPv4. Check never fails: every DNS outcome is reported in the Result.
// It makes 1 PTR lookup and at most MaxForward forward lookups through r.
func Check(ctx context.Context, r resolver.Resolver, addr netip.Addr) Result {
	name, ok := Question(addr)
	addr = plain(addr)
	if !ok {
		return Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonInvalidName, Confirmed: Unknown}
	}
	res := Result{IPVersion: 6, ForwardType: forwardType(addr), Confirmed: Unknown}
	if addr.Is4() {
		res.IPVersion = 4
	}
	a := r.Lookup(ctx, name, resolver.TypePTR)
	res.Outcome, res.Reason = a.Outcome, a.Reason
	if !a.Conclusive() {
		return res
	}
	res.ReverseAliased = len(a.CNAMEs) > 0
	var f findings.Set[Code]
	if a.Absent() {
		res.Confirmed, res.NameCount = NotConfirmed, new(0)
		f.Add(CodeNoPTR)
		res.Findings = f.InOrder(order)
		return res
	}
	names := distinct(a.Targets())
	res.NameCount = new(len(names))
	selected := classify(names, addr, &res, &f)
	confirm(ctx, r, addr, selected, &res, &f)
	res.Findings = f.InOrder(order)
	return res
}

// ForwardQuestions returns the names whose records of type qtype (A for
// an IPv4 addr, AAAA for IPv6) Check asks to confirm addr forward once
// its PTR question has answer a: the valid host names a points to, the
// first MaxForward in sorted order; none when a is inconclusive or
// empty. A caller that asks them before Check runs (the scan's first
// questions) asks what Check will.
func ForwardQuestions(addr netip.Addr, a resolver.Answer) (names []string, qtype resolver.Type) {
	addr = plain(addr)
	qtype = forwardType(addr)
	if !addr.IsValid() || !a.Conclusive() || a.Absent() {
		return nil, qtype
	}
	var res Result
	var f findings.Set[Code]
	return classify(distinct(a.Targets()), addr, &res, &f), qtype
}

// forwardType is the type of the forward lookups that confirm addr
// (plain): A for IPv4, AAAA for IPv6 (doc/rfc-notes.md §8.1).
func forwardType(addr netip.Addr) resolver.Type {
	if addr.Is4() {
		return resolver.TypeA
	}
	return resolver.TypeAAAA
}

// distinct returns the distinct names, compared case-insensitively and
// without the trailing dot.
func distinct(targets []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range targets {
		n := resolver.CanonicalName(t)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// classify counts invalid and localhost names, flags generic ones, and
// returns the valid host names selected for forward lookups: the first
// MaxForward in sorted order.
func classify(names []string, addr netip.Addr, res *Result, f *findings.Set[Code]) []string {
	var valid []string
	for _, n := range names {
		if isGeneric(n, addr) {
			f.Add(CodeGenericName)
		}
		switch {
		case isLocalhost(n):
			f.Add(CodeLocalhostName)
		case !isHostname(n):
			res.InvalidNameCount++
			f.Add(CodeInvalidName)
		default:
			valid = append(valid, n)
		}
	}
	sort.Strings(valid)
	if len(valid) > MaxForward {
		valid = valid[:MaxForward]
		f.Add(CodeTooManyNames)
	}
	return valid
}

// forward is the outcome of one forward lookup.
type forward struct {
	completed bool
	addresses int
	match     bool
}

// confirm looks the selected names up forward, concurrently, and sets the
// forward fields of res (doc/rfc-notes.md §8.2).
func confirm(ctx context.Context, r resolver.Resolver, addr netip.Addr, names []string, res *Result, f *findings.Set[Code]) {
	pending := make([]*resolver.Pending, len(names)) // all begun, then waited in this goroutine
	for i, name := range names {
		pending[i] = resolver.Begin(ctx, r, name, res.ForwardType)
	}
	out := make([]forward, len(names))
	for i, p := range pending {
		out[i] = forwardOf(p.Wait(), addr)
	}
	res.ForwardQueries = len(names)
	matched, addresses := false, 0
	for _, fw := range out {
		if fw.completed {
			res.ForwardCompleted++
			addresses += fw.addresses
		}
		matched = matched || fw.match
	}
	if res.ForwardCompleted > 0 {
		res.ForwardAddresses = new(addresses)
	}
	switch {
	case matched:
		res.Confirmed = Confirmed
	case res.ForwardCompleted == res.ForwardQueries:
		res.Confirmed = NotConfirmed
	}
	if res.ForwardCompleted < res.ForwardQueries {
		f.Add(CodeForwardInconclusive)
	}
}

// forwardOf is the outcome of a forward lookup whose answer is a, for
// the address addr.
func forwardOf(a resolver.Answer, addr netip.Addr) forward {
	fw := forward{completed: a.Conclusive()}
	for _, x := range a.Addrs() {
		fw.addresses++
		if x.Unmap() == addr {
			fw.match = true
		}
	}
	return fw
}
