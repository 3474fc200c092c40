package dmarc

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts of one DMARC check. It never carries record
// text, URIs or any name from an answer: PolicyDomain is always Domain
// or one of its parents. "Unknown" below is the API's null.
type Result struct {
	// Domain is the author domain checked, lower-case without the dot.
	Domain string
	// Outcome and Reason are those of the direct lookup, the TXT query
	// at _dmarc.<Domain>.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// DirectRecordCount is the number of DMARC records at the direct
	// target (directRecordCount); nil (unknown, see the resolver package
	// doc) when Outcome is Inconclusive.
	DirectRecordCount *int
	// Discovery is the outcome of policy discovery (policyFound).
	Discovery Discovery
	// TreeWalkQueries is the number of targets queried, 1..MaxTreeWalk,
	// including the one whose answer was inconclusive. Always known.
	TreeWalkQueries int
	// ConflictingRecords reports that a queried target had two or more
	// DMARC records, all discarded. Always known.
	ConflictingRecords bool
	// DomainExistence says whether Domain exists, from an MX lookup of
	// Domain (shared with the mx check), or, when that is inconclusive,
	// from a conclusive answer that _dmarc.<Domain> exists. Always set.
	DomainExistence Existence

	// The fields below describe the selected record; they are zero, and
	// unknown, unless Discovery is DiscoveryFound.

	// PolicyDomain is the domain whose record was selected.
	PolicyDomain string
	// Inherited reports that PolicyDomain is a parent of Domain.
	Inherited bool
	// PolicyTag is the tag that applies: p for Domain's own record; for
	// an inherited one np when Domain does not exist, else sp, else p,
	// falling back to the next when the tag is absent.
	PolicyTag PolicyTag
	// Policy is the applied policy, including the none fallback; "" when
	// no valid policy applies (no record, or a record with an invalid p,
	// sp or np and no valid rua URI: receivers apply no DMARC).
	Policy Policy
	// UsesNoneFallback reports that Policy is none only because the
	// record's p is missing or invalid, or its sp or np invalid, and rua
	// holds a valid URI (RFC 9989 §4.10.1).
	UsesNoneFallback bool
	// TestMode reports t=y: receivers apply one level less than Policy.
	TestMode bool
	// DKIMAlignment and SPFAlignment are the adkim and aspf modes:
	// relaxed when absent, unknown when the value is invalid (RFC 9989
	// receivers then use relaxed, others ignore the record).
	DKIMAlignment, SPFAlignment Alignment
	// AggregateReporting reports at least one valid rua URI.
	AggregateReporting bool
	// LegacyPctPresent reports the historic pct tag.
	LegacyPctPresent bool
	// LegacyPct is, when LegacyPctPresent, the share of failing mail (0
	// to 100) that RFC 7489 receivers apply Policy to: the selected
	// record's Record.Pct. It is 0 when the tag is absent.
	LegacyPct int
	// BadTag is the selected record's Record.BadTag: the position of its
	// first defective tag, 0 when none (or no record was selected).
	BadTag int

	// Findings are stable codes, sorted, without duplicates: the selected
	// record's, then those of discovery.
	Findings []Code
}
