package mailauth

import "github.com/mailauth/mailauth/resolver"

// spfBudget is what the per-scan budget leaves to SPF, whose fan-out
// (includes, mx terms and their exchanges) is the only one that can be
// large for a valid record: RFC 7208 §4.6.4 caps the terms at 10 but each
// mx term may need 11 questions. With the default budget of 130 SPF gets
// 52 distinct questions; a policy needing more is reported as not fully
// expanded instead of starving the other checks.
func spfBudget(total int) int {
	if total <= 0 {
		total = resolver.DefaultBudget
	}
	rest := total
	for _, n := range checkBudgets {
		rest -= n
	}
	return max(rest, 1)
}

// dnsFor returns the resolver check id uses: the scan's shared resolver,
// bounded to the check's share of the budget.
func (r *run) dnsFor(id CheckID) *resolver.Limited {
	limit, ok := checkBudgets[id]
	if !ok {
		limit = spfBudget(r.cfg.QueryBudget)
	}
	return resolver.Limit(r.dns, limit)
}
