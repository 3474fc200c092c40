package dmarc

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

var loadZones = sync.OnceValues(func() (*dnstest.Zones, error) {
	return dnstest.Load("testdata/dmarc.zone")
})

func zones(t *testing.T) *dnstest.Zones {
	t.Helper()
	z, err := loadZones()
	require.NoError(t, err)
	return z
}

// fault is one fault to inject, declared next to its case.
type fault = dnstest.FaultAt

const (
	relaxed = AlignmentRelaxed
	strict  = AlignmentStrict
	found   = resolver.Found
	nxd     = resolver.NXDomain
)

// direct is the Result of a record found at the author domain itself.
func direct(domain string, p Policy) Result {
	return Result{
		Domain: domain, Outcome: found, DirectRecordCount: new(1), Discovery: DiscoveryFound,
		TreeWalkQueries: 1, DomainExistence: Exists, PolicyDomain: domain, PolicyTag: TagP,
		Policy: p, DKIMAlignment: relaxed, SPFAlignment: relaxed,
	}
}

// inherited is the Result of a record inherited from policyDomain.
func inherited(domain, policyDomain string, queries int, ex Existence, tag PolicyTag, p Policy) Result {
	return Result{
		Domain: domain, Outcome: nxd, DirectRecordCount: new(0), Discovery: DiscoveryFound, TreeWalkQueries: queries,
		DomainExistence: ex, PolicyDomain: policyDomain, Inherited: true, PolicyTag: tag,
		Policy: p, DKIMAlignment: relaxed, SPFAlignment: relaxed,
	}
}

// with applies changes to a Result, so that each case states what is
// special about it next to the common shape.
func with(r Result, change func(*Result)) Result {
	change(&r)
	return r
}

func TestCheck(t *testing.T) {
	t.Parallel()
	z := zones(t)
	tests := []struct {
		name   string
		domain string
		faults []fault
		want   Result
	}{
		{name: "pass", domain: "pass.dmarc.test",
			want: with(direct("pass.dmarc.test", PolicyReject), func(r *Result) { r.AggregateReporting = true })},
		{name: "inherit-sp", domain: "mail.inherit-sp.dmarc.test",
			want: inherited("mail.inherit-sp.dmarc.test", "inherit-sp.dmarc.test", 4, Exists, TagSP, PolicyQuarantine)},
		{name: "inherit-np", domain: "ghost.inherit-np.dmarc.test",
			want: inherited("ghost.inherit-np.dmarc.test", "inherit-np.dmarc.test", 4, Nonexistent, TagNP, PolicyReject)},
		{name: "inherit-np/existing", domain: "mail.inherit-np.dmarc.test",
			want: inherited("mail.inherit-np.dmarc.test", "inherit-np.dmarc.test", 4, Exists, TagSP, PolicyQuarantine)},
		{name: "np-absent", domain: "ghost.np-absent.dmarc.test",
			want: inherited("ghost.np-absent.dmarc.test", "np-absent.dmarc.test", 4, Nonexistent, TagSP, PolicyNone)},
		{name: "p-only", domain: "ghost.p-only.dmarc.test",
			want: inherited("ghost.p-only.dmarc.test", "p-only.dmarc.test", 4, Nonexistent, TagP, PolicyQuarantine)},
		{name: "missing-p-rua", domain: "missing-p-rua.dmarc.test",
			want: with(direct("missing-p-rua.dmarc.test", PolicyNone), func(r *Result) {
				r.UsesNoneFallback, r.AggregateReporting, r.Findings = true, true, []Code{CodeMissingP}
			})},
		{name: "missing-p", domain: "missing-p.dmarc.test",
			want: with(direct("missing-p.dmarc.test", ""), func(r *Result) {
				r.DKIMAlignment, r.Findings = strict, []Code{CodeMissingP}
			})},
		{name: "invalid-p", domain: "invalid-p.dmarc.test",
			want: with(direct("invalid-p.dmarc.test", ""), func(r *Result) { r.Findings = []Code{CodeInvalidP} })},
		{name: "invalid-p-rua", domain: "invalid-p-rua.dmarc.test",
			want: with(direct("invalid-p-rua.dmarc.test", PolicyNone), func(r *Result) {
				r.UsesNoneFallback, r.AggregateReporting, r.Findings = true, true, []Code{CodeInvalidP}
			})},
		{name: "invalid-sp", domain: "invalid-sp.dmarc.test",
			want: with(direct("invalid-sp.dmarc.test", PolicyNone), func(r *Result) {
				r.UsesNoneFallback, r.AggregateReporting, r.Findings = true, true, []Code{CodeInvalidSP}
			})},
		{name: "invalid-np", domain: "mail.invalid-np.dmarc.test",
			want: with(inherited("mail.invalid-np.dmarc.test", "invalid-np.dmarc.test", 4, Exists, TagP, ""), func(r *Result) {
				r.Findings = []Code{CodeInvalidNP}
			})},
		{name: "author-invalid", domain: "child.author-invalid.dmarc.test",
			want: with(direct("child.author-invalid.dmarc.test", ""), func(r *Result) { r.Findings = []Code{CodeInvalidP} })},
		{name: "testing", domain: "testing.dmarc.test",
			want: with(direct("testing.dmarc.test", PolicyQuarantine), func(r *Result) {
				r.TestMode, r.Findings = true, []Code{CodeTestMode}
			})},
		{name: "pct", domain: "pct.dmarc.test",
			want: with(direct("pct.dmarc.test", PolicyReject), func(r *Result) {
				r.LegacyPctPresent, r.Findings = true, []Code{CodeLegacyPct}
			})},
		{name: "pct100", domain: "pct100.dmarc.test",
			want: with(direct("pct100.dmarc.test", PolicyQuarantine), func(r *Result) {
				r.LegacyPctPresent, r.LegacyPct, r.Findings = true, 100, []Code{CodeLegacyPctFull}
			})},
		{name: "multiple", domain: "multiple.dmarc.test",
			want: Result{
				Domain: "multiple.dmarc.test", Outcome: found, DirectRecordCount: new(2), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, ConflictingRecords: true, DomainExistence: Exists,
				Findings: []Code{CodeMultipleRecords},
			}},
		{name: "multiple-continue", domain: "mail.multiple-continue.dmarc.test",
			want: with(inherited("mail.multiple-continue.dmarc.test", "multiple-continue.dmarc.test", 4, Exists, TagP, PolicyReject), func(r *Result) {
				r.Outcome, r.DirectRecordCount, r.ConflictingRecords = found, new(2), true
				r.Findings = []Code{CodeMultipleRecords}
			})},
		{name: "deep", domain: "b.c.d.e.f.g.h.deep.dmarc.test",
			want: with(inherited("b.c.d.e.f.g.h.deep.dmarc.test", "deep.dmarc.test", 8, Exists, TagP, PolicyReject), func(r *Result) {
				r.Findings = []Code{CodeTreeWalkShortcut}
			})},
		{name: "eight", domain: "a.b.c.d.e.eight.dmarc.test",
			want: inherited("a.b.c.d.e.eight.dmarc.test", "eight.dmarc.test", 8, Exists, TagP, PolicyQuarantine)},
		{name: "psd-n", domain: "a.b.psd-n.dmarc.test",
			want: inherited("a.b.psd-n.dmarc.test", "b.psd-n.dmarc.test", 2, Exists, TagP, PolicyNone)},
		{name: "od-fewest", domain: "a.b.od-fewest.dmarc.test",
			want: with(inherited("a.b.od-fewest.dmarc.test", "od-fewest.dmarc.test", 5, Exists, TagP, PolicyReject), func(r *Result) {
				r.Findings = []Code{CodeNearerRecordIgnored}
			})},
		{name: "psd-invalid", domain: "mail.psd-invalid.dmarc.test",
			want: with(inherited("mail.psd-invalid.dmarc.test", "psd-invalid.dmarc.test", 4, Exists, TagP, PolicyReject), func(r *Result) {
				r.Findings = []Code{CodeInvalidPSD}
			})},
		{name: "servfail", domain: "servfail.dmarc.test",
			faults: []fault{{Name: "_dmarc.servfail.dmarc.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
			want: Result{
				Domain: "servfail.dmarc.test", Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail,
				Discovery: DiscoveryInconclusive, TreeWalkQueries: 1, DomainExistence: Exists,
			}},
		{name: "servfail-mid", domain: "mail.servfail-mid.dmarc.test",
			faults: []fault{{Name: "_dmarc.servfail-mid.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want: Result{
				Domain: "mail.servfail-mid.dmarc.test", Outcome: nxd, DirectRecordCount: new(0), Discovery: DiscoveryInconclusive,
				TreeWalkQueries: 2, DomainExistence: Exists,
			}},
		{name: "timeout", domain: "timeout.dmarc.test",
			faults: []fault{{Name: "_dmarc.timeout.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: Result{
				Domain: "timeout.dmarc.test", Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout,
				Discovery: DiscoveryInconclusive, TreeWalkQueries: 1, DomainExistence: Exists,
			}},
		{name: "refused", domain: "refused.dmarc.test",
			faults: []fault{{Name: "_dmarc.refused.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Refused}},
			want: Result{
				Domain: "refused.dmarc.test", Outcome: resolver.Inconclusive, Reason: resolver.ReasonRefused,
				Discovery: DiscoveryInconclusive, TreeWalkQueries: 1, DomainExistence: Exists,
			}},
		{name: "truncate", domain: "truncate.dmarc.test", // in memory a truncated reply is a normal answer
			faults: []fault{{Name: "_dmarc.truncate.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Truncate}},
			want:   direct("truncate.dmarc.test", PolicyReject)},
		{name: "split", domain: "split.dmarc.test",
			want: with(direct("split.dmarc.test", PolicyReject), func(r *Result) { r.AggregateReporting = true })},
		{name: "version-not-first", domain: "version-not-first.dmarc.test",
			want: Result{
				Domain: "version-not-first.dmarc.test", Outcome: found, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists, Findings: []Code{CodeIgnoredRecord},
			}},
		{name: "lowercase-version", domain: "mail.lowercase-version.dmarc.test",
			want: with(inherited("mail.lowercase-version.dmarc.test", "lowercase-version.dmarc.test", 4, Exists, TagP, PolicyQuarantine), func(r *Result) {
				r.Outcome, r.Findings = found, []Code{CodeIgnoredRecord}
			})},
		{name: "uppercase-tags", domain: "uppercase-tags.dmarc.test",
			// P, SP, ADKIM and ASPF are not tags of DMARC (names are
			// case-sensitive): no p and no rua, so no policy.
			want: with(direct("uppercase-tags.dmarc.test", ""), func(r *Result) {
				r.Findings = []Code{CodeMissingP, CodeTagNameCase, CodeUppercaseVersionTag}
			})},
		{name: "unknown-tags", domain: "unknown-tags.dmarc.test",
			want: with(direct("unknown-tags.dmarc.test", PolicyReject), func(r *Result) { r.Findings = []Code{CodeUnknownTag} })},
		{name: "whitespace", domain: "whitespace.dmarc.test",
			want: direct("whitespace.dmarc.test", PolicyReject)},
		{name: "nodata", domain: "nodata.dmarc.test",
			want: Result{
				Domain: "nodata.dmarc.test", Outcome: resolver.NoData, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists,
			}},
		{name: "other-txt", domain: "other-txt.dmarc.test",
			want: Result{
				Domain: "other-txt.dmarc.test", Outcome: found, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists,
			}},
		{name: "nxdomain", domain: "nxdomain.dmarc.test",
			want: Result{
				Domain: "nxdomain.dmarc.test", Outcome: nxd, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Nonexistent,
			}},
		{name: "wildcard", domain: "mail.wildcard.dmarc.test",
			want: with(inherited("mail.wildcard.dmarc.test", "wildcard.dmarc.test", 4, Exists, TagP, PolicyReject), func(r *Result) {
				r.Outcome = found
			})},
		{name: "cname", domain: "cname.dmarc.test",
			want: direct("cname.dmarc.test", PolicyQuarantine)},
		{name: "cname-dangling", domain: "cname-dangling.dmarc.test",
			want: Result{
				Domain: "cname-dangling.dmarc.test", Outcome: nxd, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists,
			}},
		{name: "size-suffix", domain: "size-suffix.dmarc.test",
			want: with(direct("size-suffix.dmarc.test", PolicyNone), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeSizeSuffix}
			})},
		{name: "rua-noscheme", domain: "rua-noscheme.dmarc.test",
			want: with(direct("rua-noscheme.dmarc.test", PolicyReject), func(r *Result) { r.Findings = []Code{CodeInvalidRUA} })},
		{name: "rua-external", domain: "rua-external.dmarc.test",
			want: with(direct("rua-external.dmarc.test", PolicyNone), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnauthorized}
			})},
		{name: "rua-authorized", domain: "rua-authorized.dmarc.test",
			want: with(direct("rua-authorized.dmarc.test", PolicyNone), func(r *Result) { r.AggregateReporting = true })},
		{name: "rua-unverified", domain: "rua-unverified.dmarc.test",
			faults: []fault{{Name: "rua-unverified.dmarc.test._report._dmarc.reports.provider.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want: with(direct("rua-unverified.dmarc.test", PolicyNone), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnverified}
			})},
		{name: "rua-internal", domain: "rua-internal.dmarc.test",
			want: with(direct("rua-internal.dmarc.test", PolicyNone), func(r *Result) { r.AggregateReporting = true })},
		// RFC 9990 §3 compares Organizational Domains found by the DNS Tree
		// Walk (RFC 9989 §4.10.2), psd flags included, not by the PSL alone.
		{name: "rua-psd-n-split", domain: "a.org-split.dmarc.test",
			want: with(direct("a.org-split.dmarc.test", PolicyReject), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnauthorized}
			})},
		{name: "rua-psd-n-split-authorized", domain: "c.org-split.dmarc.test",
			want: with(direct("c.org-split.dmarc.test", PolicyReject), func(r *Result) { r.AggregateReporting = true })},
		{name: "rua-same-tree-walk-od", domain: "d.org-split.dmarc.test",
			want: with(direct("d.org-split.dmarc.test", PolicyReject), func(r *Result) { r.AggregateReporting = true })},
		// A forgotten ";" after v=DMARC1 is named as such.
		{name: "missing-separator", domain: "missing-separator.dmarc.test",
			want: Result{
				Domain: "missing-separator.dmarc.test", Outcome: found, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists, Findings: []Code{CodeMissingSeparator},
			}},
		// a record with a typo in the version is still only "ignored".
		{name: "version-typo", domain: "version-typo.dmarc.test",
			want: Result{
				Domain: "version-typo.dmarc.test", Outcome: found, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists, Findings: []Code{CodeIgnoredRecord},
			}},
		// sp=none under p=reject leaves the subdomains unprotected.
		{name: "sp-none", domain: "sp-none.dmarc.test",
			want: with(direct("sp-none.dmarc.test", PolicyReject), func(r *Result) { r.Findings = []Code{CodeSubdomainPolicyNone} })},
		// inherited by a subdomain, sp=none is the applied policy itself.
		{name: "sp-none-inherited", domain: "mail.sp-none.dmarc.test",
			want: inherited("mail.sp-none.dmarc.test", "sp-none.dmarc.test", 4, Exists, TagSP, PolicyNone)},
		{name: "rua-other-co-uk", domain: "shop.co.uk",
			want: with(direct("shop.co.uk", PolicyReject), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnauthorized}
			})},
		{name: "rua-own-co-uk", domain: "brand.co.uk",
			want: with(direct("brand.co.uk", PolicyReject), func(r *Result) { r.AggregateReporting = true })},
		{name: "rua-other-com-cn", domain: "shop.com.cn",
			want: with(direct("shop.com.cn", PolicyReject), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnauthorized}
			})},
		{name: "rua-many", domain: "rua-many.dmarc.test",
			want: with(direct("rua-many.dmarc.test", PolicyNone), func(r *Result) {
				r.AggregateReporting, r.Findings = true, []Code{CodeExternalUnauthorized}
			})},
		{name: "apex-record", domain: "apex-record.dmarc.test",
			want: Result{
				Domain: "apex-record.dmarc.test", Outcome: nxd, DirectRecordCount: new(0), Discovery: DiscoveryNotFound,
				TreeWalkQueries: 3, DomainExistence: Exists, Findings: []Code{CodeRecordAtApex},
			}},
		{name: "duplicate-tag", domain: "duplicate-tag.dmarc.test",
			want: with(direct("duplicate-tag.dmarc.test", PolicyReject), func(r *Result) { r.Findings = []Code{CodeDuplicateTag} })},
		{name: "invalid-values", domain: "invalid-values.dmarc.test",
			want: with(direct("invalid-values.dmarc.test", PolicyReject), func(r *Result) {
				r.DKIMAlignment, r.SPFAlignment = AlignmentUnknown, strict
				r.Findings = []Code{CodeFOWithoutRUF, CodeInvalidADKIM, CodeInvalidFO, CodeInvalidPSD, CodeInvalidT}
			})},
		{name: "existence-unknown", domain: "mail.existence-unknown.dmarc.test",
			faults: []fault{{Name: "mail.existence-unknown.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want: with(inherited("mail.existence-unknown.dmarc.test", "existence-unknown.dmarc.test", 4, ExistenceUnknown, TagSP, PolicyNone), func(r *Result) {
				r.Findings = []Code{CodeExistenceUnknown}
			})},
		{name: "existence-unknown/timeout", domain: "mail.inherit-np.dmarc.test", // np=reject and sp=quarantine differ
			faults: []fault{{Name: "mail.inherit-np.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: with(inherited("mail.inherit-np.dmarc.test", "inherit-np.dmarc.test", 4, ExistenceUnknown, TagSP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodeExistenceUnknown}
			})},
		{name: "existence-unknown/no-np", domain: "mail.inherit-sp.dmarc.test", // no np: existence does not matter
			faults: []fault{{Name: "mail.inherit-sp.dmarc.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want:   inherited("mail.inherit-sp.dmarc.test", "inherit-sp.dmarc.test", 4, ExistenceUnknown, TagSP, PolicyQuarantine)},
		{name: "existence-inferred", domain: "existence-inferred.dmarc.test",
			faults: []fault{{Name: "existence-inferred.dmarc.test", Type: resolver.TypeMX, Fault: dnstest.ServFail}},
			want:   direct("existence-inferred.dmarc.test", PolicyReject)},
		{name: "alias-author", domain: "mail.alias-author.dmarc.test",
			want: inherited("mail.alias-author.dmarc.test", "alias-author.dmarc.test", 4, Exists, TagSP, PolicyNone)},
		{name: "psd/shop.org", domain: "shop.org.example",
			want: with(inherited("shop.org.example", "example", 3, Exists, TagP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodePSDPolicy}
			})},
		{name: "psd/org", domain: "org.example",
			want: with(inherited("org.example", "example", 2, Exists, TagP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodePSDPolicy}
			})},
		{name: "psd/ghost.org", domain: "ghost.org.example",
			want: with(inherited("ghost.org.example", "example", 3, Nonexistent, TagNP, PolicyReject), func(r *Result) {
				r.Findings = []Code{CodePSDPolicy}
			})},
		{name: "psd/own", domain: "mail.own.example",
			want: inherited("mail.own.example", "own.example", 3, Exists, TagP, PolicyNone)},
		{name: "psd/ps27", domain: "a.b.ps27.example",
			want: with(inherited("a.b.ps27.example", "example", 4, Exists, TagP, PolicyQuarantine), func(r *Result) {
				r.Findings = []Code{CodeNearerRecordIgnored, CodePSDPolicy}
			})},
		{name: "psd/self", domain: "EXAMPLE.",
			want: with(direct("example", PolicyQuarantine), func(r *Result) {})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			got := Check(context.Background(), r, tc.domain)
			want := tc.want
			want.BadTag = wantBadTag[tc.name]
			assert.Equal(t, want, got, "Check(%q)", tc.domain)
			// The walk's questions: the first TreeWalkQueries record
			// names of the domain's targets asked (the rua checks,
			// after the walk, walk again from their own names), in the
			// order a Walk gives.
			targets := map[string]bool{}
			for _, target := range Targets(tc.domain) {
				targets[RecordName(target)] = true
			}
			var walked []string
			for _, q := range r.Queries() {
				if name := resolver.CanonicalName(q.Name); targets[name] && len(walked) < got.TreeWalkQueries {
					walked = append(walked, name)
				}
			}
			chain, auths := walkChain(t, z, tc.faults, tc.domain)
			assert.Equal(t, chain, walked, "the walk's questions")
			// The authorizations Walk gives are asked; it gives none
			// when a destination is in the policy domain's organization
			// by the PSL, which needs a walk first.
			var asked []string
			for _, q := range r.Queries() {
				name := resolver.CanonicalName(q.Name)
				if strings.Contains(name, "._report._dmarc.") && !slices.Contains(asked, name) {
					asked = append(asked, name)
					if !slices.Contains(auths, name) {
						assert.Empty(t, auths, "%s: an authorization Walk does not give, beside those it gives: %s", tc.name, name)
					}
				}
			}
			assert.Subset(t, asked, auths, "the authorizations Walk gives are Check's")
			if tc.name == "rua-external" {
				assert.NotEmpty(t, auths, "an external destination")
			}
		})
	}
}

// walkChain returns the record names a Walk of domain asks from the
// answers of a resolver over z with faults, in order, and then the
// authorization names it gives: the questions the scan asks before the
// check runs.
func walkChain(t *testing.T, z *dnstest.Zones, faults []fault, domain string) (walked, auths []string) {
	r := dnstest.NewResolver(z)
	r.Apply(faults...)
	k := NewWalk(domain)
	name, ok := k.Next(nil)
	for ok {
		walked = append(walked, name)
		a := r.Lookup(t.Context(), name, resolver.TypeTXT)
		name, ok = k.Next(&a)
	}
	return walked, k.Authorizations()
}

// wantBadTag is the Result.BadTag of the scenarios whose selected record
// has a defective tag: its position after v=DMARC1.
var wantBadTag = map[string]int{
	"author-invalid": 1, "invalid-p": 1, "invalid-p-rua": 1,
	"duplicate-tag": 2, "invalid-np": 2, "invalid-sp": 2, "invalid-values": 2, "psd-invalid": 2, "rua-noscheme": 2,
}

// TestWalk: the walk goes on past an empty or conflicting target and a
// parent's record without psd, stops at the domain's own record, at an
// inconclusive answer and at a psd=n record, and passes over a target
// whose record name cannot exist; Authorizations names what the selected
// record sends to other organizations, once the walk is over.
func TestWalk(t *testing.T) {
	txt := func(s ...string) *resolver.Answer {
		return &resolver.Answer{Outcome: found, Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: s}}}
	}
	multi := &resolver.Answer{Outcome: found, Records: []resolver.Record{
		{Type: resolver.TypeTXT, TXT: []string{"v=DMARC1; p=none"}}, {Type: resolver.TypeTXT, TXT: []string{"v=DMARC1; p=reject"}}}}
	nx := &resolver.Answer{Outcome: nxd}
	// walk feeds answers to a Walk of a.b.example.com and returns the names it asked.
	walk := func(answers ...*resolver.Answer) ([]string, *Walk) {
		k := NewWalk("A.b.example.com.")
		var asked []string
		name, ok := k.Next(nil)
		for _, a := range answers {
			require.True(t, ok, "an answer past the walk's end")
			asked = append(asked, name)
			name, ok = k.Next(a)
		}
		require.False(t, ok, "the walk goes on past its answers")
		return asked, k
	}
	all := []string{"_dmarc.a.b.example.com", "_dmarc.b.example.com", "_dmarc.example.com", "_dmarc.com"}
	asked, k := walk(nx, multi, txt("v=spf1 -all"), nx)
	assert.Equal(t, all, asked, "nothing ends it: every target")
	assert.Empty(t, k.Authorizations(), "no record selected")
	asked, k = walk(txt("v=DMARC1; p=none; rua=mailto:d@reports.example.net,mailto:x@a.b.example.com,mailto:e@reports.example.org"))
	assert.Equal(t, all[:1], asked, "the domain's own record ends it")
	assert.Equal(t, []string{"a.b.example.com._report._dmarc.reports.example.net", "a.b.example.com._report._dmarc.reports.example.org"},
		k.Authorizations(), "other organizations' destinations, not the domain's own")
	_, k = walk(txt("v=DMARC1; p=none; rua=mailto:d@reports.example.net,mailto:y@mail.example.com"))
	assert.Empty(t, k.Authorizations(), "a destination in the domain's organization by the PSL: Check walks first")
	asked, _ = walk(nx, txt("v=DMARC1; p=none"), txt("v=DMARC1; p=none; psd=n"))
	assert.Equal(t, all[:3], asked, "a parent's record without psd goes on; psd=n ends it")
	servfail := resolver.Fail(resolver.ReasonServFail)
	asked, k = walk(nx, &servfail)
	assert.Equal(t, all[:2], asked, "an inconclusive answer ends it")
	assert.Empty(t, k.Authorizations(), "inconclusive: nothing selected")

	long := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 44) + ".example.com"
	require.Greater(t, len(RecordName(long)), MaxNameLen)
	name, ok := NewWalk(long).Next(nil)
	assert.True(t, ok)
	assert.Equal(t, RecordName(Targets(long)[1]), name, "the parent, whose record name can exist")
}
