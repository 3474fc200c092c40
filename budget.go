package mailauth

import (
	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
)

// checkBudgets bounds the distinct DNS questions of each check within the
// per-scan budget, from each package's own limits, so that no check can
// spend what its siblings need: the scan's outcome must not depend on
// which check asks first.
var checkBudgets = map[CheckID]int{
	CheckMX:     1 + 2 + 2*mx.MaxExchanges,                             // MX; A/AAAA of the domain (implicit MX) or of each exchange
	CheckDMARC:  dmarc.MaxTreeWalk + 2 + dmarc.MaxExternalDestinations, // the walk (RFC 9989 §4.10); MX and TXT of the domain; RFC 9990 §3 authorizations
	CheckDKIM:   1,                                                     // the selector's TXT
	CheckMTASTS: 3,                                                     // _mta-sts TXT; A and AAAA of the policy host
	CheckTLSRPT: 1,                                                     // _smtp._tls TXT
	CheckPTR:    1 + ptr.MaxForward,                                    // PTR; forward lookups
	CheckCAA:    caa.MaxClimb + 1,                                      // the climb (RFC 8659 §3); mta-sts.<domain>
}

// spfBudget is what the per-scan budget leaves to SPF, whose fan-out
// (includes, mx terms and their exchanges) is the only one that can be
// large for a valid record: RFC 7208 §4.6.4 caps the terms at 10 but each
// mx term may need 11 questions. With the default budget of 120 SPF gets
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
func (r *run) dnsFor(id CheckID) resolver.Resolver {
	limit, ok := checkBudgets[id]
	if !ok {
		limit = spfBudget(r.cfg.QueryBudget)
	}
	return resolver.Limit(r.dns, limit)
}
