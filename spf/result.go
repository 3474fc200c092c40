package spf

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts Check found about a domain's SPF policy. It never
// holds record text, target names or addresses.
type Result struct {
	// Outcome and Reason are those of the TXT lookup at the domain.
	Outcome resolver.Outcome
	Reason  resolver.Reason

	// RecordCount is the number of SPF records at the domain: 0 when the
	// name has none (NODATA, NXDOMAIN or no v=spf1 TXT); nil (unknown, see
	// the resolver package doc) when the TXT lookup was inconclusive.
	RecordCount *int

	// LookupCount is the number of DNS-causing terms an evaluation for a
	// client that matches nothing would use, across the expanded tree
	// (dnsLookupCount). nil when there is no unique policy to expand (no
	// record, several records, an inconclusive TXT lookup, or a record
	// that does not parse). When LookupComplete is false it is a lower
	// bound.
	LookupCount *int
	// LookupLimit is always MaxLookups (dnsLookupLimit).
	LookupLimit int
	// LookupComplete is true when every include and redirect target was
	// expanded: fetched conclusively, no macro needing sender data, no
	// loop, no safety bound reached (lookupComplete). Always false when
	// LookupCount is nil.
	LookupComplete bool

	// VoidLookups is the number of DNS-causing terms (and mx exchange
	// address lookups) within the first MaxLookups that returned no
	// records. A lower bound when a lookup was inconclusive
	// (CodeTermInconclusive) or LookupComplete is false; 0 when
	// LookupCount is nil.
	VoidLookups int
	// MacroTerms is the number of counted DNS-causing terms whose
	// domain-spec needs sender data and so was not expanded.
	MacroTerms int
	// PTRTerms is the number of counted ptr mechanisms (deprecated, §5.5).
	PTRTerms int

	// All is the qualifier of the all mechanism of the domain's own
	// record; QualifierNone when it has none or there is no unique record.
	All Qualifier
	// HasRedirect is true when the domain's own record has a redirect
	// modifier (even one ignored because of all).
	HasRedirect bool
	// EffectiveAll is the qualifier that ends an evaluation for a client
	// that matches nothing: All, or, without all, that of the redirect
	// target (followed recursively). QualifierNone when no all applies,
	// and also when the redirect chain could not be followed (Error is
	// then set).
	EffectiveAll Qualifier
	// RecordLength is the length in octets of the domain's record (the
	// TXT strings joined); 0 when there is no unique record.
	RecordLength int

	// SyntaxTerm is the position of the term with the syntax error in the
	// domain's own record (1 for the first term after "v=spf1"); 0 when
	// that record parses or there is no unique record. Its finding is the
	// CodeSyntax… code in Findings.
	SyntaxTerm int
	// Includes describes the include mechanisms of the domain's own record
	// that an evaluation reaches, in record order: what each costs and the
	// first error met behind it. Empty when the record has none or there
	// is no unique record to expand.
	Includes []Include

	// Error is the error class an evaluation would end in, and ErrorCause
	// the finding that causes it: the first permerror met in evaluation
	// order, else the first temperror (a permerror wins because retrying
	// cannot fix it).
	Error      ErrorClass
	ErrorCause Code
	// Findings lists every finding once, in the order of Codes().
	Findings []Code
}
