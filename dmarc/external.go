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
// record beginning with v=DMARC1. A host the Public Suffix List puts in
// another organization is another one. A host it puts in the same one
// may still be another: Organizational Domains are found by the DNS Tree
// Walk (RFC 9989 §4.10.2, orgDomain), where a psd=n record splits what
// the PSL calls one organization, so for those both walks decide.
// Destinations never leave the package: the result is codes only.
func external(ctx context.Context, r resolver.Resolver, policyDomain string, rua []URI) []Code {
	others, same := externalHosts(policyDomain, rua)
	if len(others)+len(same) == 0 {
		return nil
	}
	var policyOD string
	policyOK := true
	if len(same) > 0 {
		policyOD, policyOK = orgDomain(ctx, r, policyDomain)
	}
	codes := make([]Code, len(others)+len(same))
	sameHost := func(i int, host string) {
		hostOD, ok := orgDomain(ctx, r, host)
		switch {
		case !ok || !policyOK:
			codes[len(others)+i] = CodeExternalUnverified // whose organization it is cannot be told
		case hostOD != policyOD:
			codes[len(others)+i] = authorize(ctx, r, policyDomain, host)
		}
	}
	// The other organizations' authorizations are one lookup each: all
	// begun (resolver.Begin), waited below. A same-organization host is
	// a chain (its tree walk, then perhaps its authorization): each but
	// the last runs in a goroutine, the last in this one.
	pending := make([]*resolver.Pending, len(others))
	for i, host := range others {
		pending[i] = resolver.Begin(ctx, r, authorizationName(policyDomain, host), resolver.TypeTXT)
	}
	var wg sync.WaitGroup
	for i, host := range same {
		if i == len(same)-1 {
			sameHost(i, host)
			break
		}
		wg.Go(func() { sameHost(i, host) })
	}
	for i, p := range pending {
		codes[i] = authorization(p.Wait())
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

// externalHosts returns the distinct hosts of valid rua URIs other than
// the policy domain itself, at most MaxExternalDestinations of each kind:
// others are in another organization by the Public Suffix List, same in
// the policy domain's by the PSL (the tree walk decides for them).
func externalHosts(policyDomain string, rua []URI) (others, same []string) {
	for _, u := range rua {
		if !u.Valid || u.Host == "" || u.Host == policyDomain {
			continue
		}
		list := &others
		if sameOrganization(policyDomain, u.Host) {
			list = &same
		}
		if !slices.Contains(*list, u.Host) && len(*list) < MaxExternalDestinations {
			*list = append(*list, u.Host)
		}
	}
	return others, same
}

// orgDomain finds the Organizational Domain of name by RFC 9989 §4.10.2:
// a DNS Tree Walk from name that collects the targets with exactly one
// DMARC record and stops at a psd=y or psd=n one; then a psd=n record
// names the OD, a psd=y record the name one label below it, and
// otherwise the record with the fewest labels does; with no record at
// all, name is its own. ok is false when an answer was inconclusive.
// The answers are mostly those policy discovery already asked for.
func orgDomain(ctx context.Context, r resolver.Resolver, name string) (od string, ok bool) {
	var recs []foundAt
	for _, target := range Targets(name) {
		a := r.Lookup(ctx, RecordName(target), resolver.TypeTXT)
		if a.Outcome == resolver.Inconclusive {
			return "", false
		}
		found := Select(a.TXTs())
		if len(found) != 1 {
			continue
		}
		rec, err := Parse(found[0])
		if err != nil {
			continue
		}
		recs = append(recs, foundAt{target, rec})
		if rec.PSD == PSDYes || rec.PSD == PSDNo {
			break
		}
	}
	if len(recs) == 0 {
		return name, true
	}
	od, _ = organizationalDomain(name, recs)
	return od, true
}

// sameOrganization reports whether two names share their Organizational
// Domain by the Public Suffix List (golang.org/x/net/publicsuffix, ICANN
// and private sections): a registrable name and everything below it are
// one organization, so example.co.uk and other.co.uk are two, and
// reports.example.com belongs to example.com. It is the first cut that
// costs no query: two names it calls one organization are told apart by
// their DNS Tree Walks (orgDomain), which see psd=n.
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
	return authorization(r.Lookup(ctx, authorizationName(policyDomain, host), resolver.TypeTXT))
}

// authorizationName is the name of the record by which host authorizes
// reports about policyDomain (RFC 9990 §3).
func authorizationName(policyDomain, host string) string {
	return policyDomain + "._report._dmarc." + host
}

// authorization is what the answer a to an authorization lookup says
// of the destination: "" when it is authorized.
func authorization(a resolver.Answer) Code {
	switch {
	case a.Outcome == resolver.Inconclusive:
		return CodeExternalUnverified
	case len(Select(a.TXTs())) > 0:
		return ""
	}
	return CodeExternalUnauthorized
}
