package dmarc

import (
	"context"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/publicsuffix"

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

// sameOrganization reports whether two names share their Organizational
// Domain, found with the Public Suffix List (golang.org/x/net/publicsuffix,
// ICANN and private sections): a registrable name and everything below it
// are one organization, so example.co.uk and other.co.uk are two, and
// reports.example.com belongs to example.com. This stands in for RFC 9989
// §4.10.2's DNS tree walk, which would cost up to eight more queries per
// destination; RFC 9990 §3 only needs to tell a third party from the
// policy domain's own organization.
func sameOrganization(a, b string) bool {
	return a == b || organization(a) == organization(b)
}

// organization is the Organizational Domain of name by the Public Suffix
// List: its public suffix plus one label. A name that is itself a public
// suffix (co.uk, or a TLD publishing a PSD policy) is its own.
func organization(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	od, err := publicsuffix.EffectiveTLDPlusOne(name)
	if err != nil {
		return name
	}
	return od
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
