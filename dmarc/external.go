package dmarc

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mailauth/mailauth/resolver"
)

// MaxExternalDestinations bounds the external rua hosts whose
// authorization record one Check looks up (RFC 9990 §3 sets no bound;
// this keeps a hostile record from spending the scan's query budget).
const MaxExternalDestinations = 4

// external verifies the aggregate-report destinations of the selected
// record that belong to another organization (RFC 9990 §3): reports are
// sent there only when <policyDomain>._report._dmarc.<host> has a TXT
// record beginning with v=DMARC1. Destinations never leave the package:
// the result is codes only.
func external(ctx context.Context, r resolver.Resolver, policyDomain string, rua []URI) []Code {
	hosts := externalHosts(policyDomain, rua)
	codes := make([]Code, len(hosts))
	var wg sync.WaitGroup
	for i, host := range hosts {
		wg.Go(func() { codes[i] = authorize(ctx, r, policyDomain, host) })
	}
	wg.Wait()
	var out []Code
	for _, c := range codes {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// externalHosts returns the distinct hosts of valid rua URIs outside the
// policy domain's organization, at most MaxExternalDestinations.
func externalHosts(policyDomain string, rua []URI) []string {
	var out []string
	for _, u := range rua {
		if !u.Valid || u.Host == "" || sameOrganization(policyDomain, u.Host) {
			continue
		}
		if !slices.Contains(out, u.Host) && len(out) < MaxExternalDestinations {
			out = append(out, u.Host)
		}
	}
	return out
}

// sameOrgSharedLabels is how many trailing labels two names must share to
// be treated as one organization by sameOrganization. Product choice, a
// heuristic in place of RFC 9989 §4.10.2's Organizational Domain tree walk
// (which would cost up to eight more queries per destination): most
// Organizational Domains are a registrable name of two labels under a
// one-label suffix (example.com), so two shared labels catch the usual
// case. It errs towards "same" — under a multi-label public suffix
// (example.co.uk) two unrelated names sharing "co.uk" count as one
// organization — so a destination may go unchecked, but an authorized one
// is never reported as unauthorized.
const sameOrgSharedLabels = 2

// sameOrganization approximates "same Organizational Domain" without a
// tree walk for each host: two names that share their last
// sameOrgSharedLabels labels or more are treated as one organization. It
// errs towards "same", so that an unauthorized destination is never
// claimed wrongly.
func sameOrganization(a, b string) bool {
	la, lb := strings.Split(a, "."), strings.Split(b, ".")
	shared := 0
	for shared < len(la) && shared < len(lb) && la[len(la)-1-shared] == lb[len(lb)-1-shared] {
		shared++
	}
	return shared >= sameOrgSharedLabels || a == b
}

// authorize looks up the authorization record for one destination.
func authorize(ctx context.Context, r resolver.Resolver, policyDomain, host string) Code {
	a := r.Lookup(ctx, policyDomain+"._report._dmarc."+host, resolver.TypeTXT)
	switch {
	case a.Outcome == resolver.Inconclusive:
		return CodeExternalUnverified
	case len(Select(a.TXTs())) > 0:
		return ""
	}
	return CodeExternalUnauthorized
}
