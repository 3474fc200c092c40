package caa

import "github.com/mailauth/mailauth/resolver"

// MaxClimb bounds the names one relevant-record-set search asks for CAA.
// RFC 8659 §3 climbs to the top-level domain; this product bound keeps a
// name with many labels from spending the scan's query budget. A search
// that reaches it without an answer is inconclusive ([CodeClimbTruncated]).
const MaxClimb = 16

// Set describes the relevant CAA record set of one name (RFC 8659 §3) and
// what it allows. Every field but Lookups is unknown when Outcome is
// Inconclusive.
type Set struct {
	// Outcome is Found when a non-empty relevant set was found, NoData
	// when every name of the climb was conclusively without CAA records
	// (the relevant set is empty: no restriction), and Inconclusive when a
	// lookup of the climb was inconclusive before a set was found (or the
	// climb hit MaxClimb). It is never NXDomain.
	Outcome resolver.Outcome
	// Reason is set when Outcome is Inconclusive; ReasonBudgetExhausted
	// when the climb hit MaxClimb.
	Reason resolver.Reason
	// Lookups is the number of CAA lookups the climb made for this name.
	Lookups int
	// Inherited reports that the set was found at a proper ancestor of
	// the name.
	Inherited bool
	// ViaCNAME reports that the lookup that found the set followed a CNAME.
	ViaCNAME bool
	// PropertyCount is the number of records in the set.
	PropertyCount int
	// Restricts reports that the set limits TLS certificate issuance: it
	// has an issue or issuewild property, or a critical unknown one. An
	// empty set, or one with only iodef, issuemail, contact or unknown
	// non-critical properties, restricts nothing.
	Restricts bool
	// CanIssue reports that some CA may issue a TLS certificate for the
	// name itself: the set is empty, has no issue property, or an issue
	// property names a CA; and no property is critical and unknown.
	CanIssue bool
	// CanIssueWildcard is CanIssue for a wildcard certificate: issuewild
	// properties govern when there are any, issue properties otherwise
	// (RFC 8659 §4.3).
	CanIssueWildcard bool
	// IssuerCount is the number of distinct CAs (issuer domain names,
	// case-insensitive) authorized by well-formed issue properties. The
	// names are never exposed.
	IssuerCount int
	// WildcardIssuerCount is the same for issuewild properties.
	WildcardIssuerCount int
	// MailIssuerCount is the same for issuemail properties (RFC 9495);
	// they govern S/MIME certificates only.
	MailIssuerCount int
	// CriticalUnknown reports a property with the issuer-critical flag and
	// a tag that is not understood (invalid tags and the reserved auth,
	// path and policy tags included): no CA may issue.
	CriticalUnknown bool
	// Findings lists the findings in the order of the Code constants,
	// without duplicates.
	Findings []Code
}
