package spf

import (
	"context"
	"errors"

	"github.com/mailauth/mailauth/resolver"
)

// Result holds the facts Check found about a domain's SPF policy. It never
// holds record text, target names or addresses.
type Result struct {
	// Outcome and Reason are those of the TXT lookup at the domain.
	Outcome resolver.Outcome
	Reason  resolver.Reason

	// RecordCount is the number of SPF records at the domain: 0 when the
	// name has none (NODATA, NXDOMAIN or no v=spf1 TXT). Unknown (the
	// API's null) when RecordCountKnown is false: the TXT lookup was
	// inconclusive.
	RecordCount      int
	RecordCountKnown bool

	// LookupCount is the number of DNS-causing terms an evaluation for a
	// client that matches nothing would use, across the expanded tree
	// (dnsLookupCount). Unknown when LookupCountKnown is false: there is
	// no unique policy to expand (no record, several records, an
	// inconclusive TXT lookup, or a record that does not parse). When
	// LookupComplete is false it is a lower bound.
	LookupCount      int
	LookupCountKnown bool
	// LookupLimit is always MaxLookups (dnsLookupLimit).
	LookupLimit int
	// LookupComplete is true when every include and redirect target was
	// expanded: fetched conclusively, no macro needing sender data, no
	// loop, no safety bound reached (lookupComplete). Always false when
	// LookupCountKnown is false.
	LookupComplete bool

	// VoidLookups is the number of DNS-causing terms (and mx exchange
	// address lookups) within the first MaxLookups that returned no
	// records. A lower bound when a lookup was inconclusive
	// (CodeTermInconclusive) or LookupComplete is false; 0 when
	// LookupCountKnown is false.
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

// Include is what one include mechanism of the domain's own record costs
// and leads to.
type Include struct {
	// Lookups is the number of DNS-causing terms it accounts for: the
	// include itself and every counted term of the tree behind it.
	Lookups int
	// Problem is the first permerror or temperror finding met while
	// expanding it (e.g. CodeIncludeNoRecord, CodeLoop, a syntax code of
	// the target), else CodeIncludePassAll when the include passes every
	// client; "" when none.
	Problem Code
}

// Check fetches and expands the SPF policy of domain, a normalized ASCII
// domain name, and returns the facts. It never fails: DNS problems are
// facts in the Result. It honours ctx; a canceled lookup is inconclusive.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	domain = resolver.CanonicalName(domain)
	res := Result{LookupLimit: MaxLookups}
	var f findings
	ans := r.Lookup(ctx, domain, resolver.TypeTXT)
	res.Outcome, res.Reason = ans.Outcome, ans.Reason
	if !ans.Conclusive() {
		f.add(CodeTXTInconclusive)
		return finish(res, &f)
	}
	res.RecordCountKnown = true
	txts := ans.TXTs()
	recs := Select(txts)
	res.RecordCount = len(recs)
	for _, s := range txts {
		if nearMiss(s) {
			f.add(CodeNearMiss)
		}
	}
	switch len(recs) {
	case 0:
		f.add(CodeNoRecord)
		if ans.Outcome != resolver.NXDomain && typeSPFOnly(ctx, r, domain) {
			f.add(CodeTypeSPFOnly)
		}
	case 1:
		checkRecord(ctx, r, domain, recs[0], &res, &f)
	default:
		f.add(CodeMultipleRecords)
	}
	return finish(res, &f)
}

// checkRecord parses the domain's one record and expands it.
func checkRecord(ctx context.Context, r resolver.Resolver, domain, text string, res *Result, f *findings) {
	res.RecordLength = len(text)
	switch {
	case len(text) > MaxRecordSize:
		f.add(CodeRecordTooLong)
	case len(text) > RecordSizeGuideline:
		f.add(CodeRecordLong)
	}
	rec, err := Parse(text)
	if err != nil {
		f.add(syntaxCode(err))
		var se *SyntaxError
		if errors.As(err, &se) {
			res.SyntaxTerm = se.Index
		}
		return
	}
	res.All, _ = rec.All()
	_, res.HasRedirect = rec.Redirect()
	w := &walker{r: r, sender: domain, complete: true, f: f}
	o := w.visit(ctx, domain, rec, 0, []string{domain})
	res.LookupCount, res.LookupCountKnown = w.count, true
	res.LookupComplete = w.complete
	res.VoidLookups, res.MacroTerms, res.PTRTerms = w.voids, w.macros, w.ptrs
	res.Includes = w.includes
	if w.count == MaxLookups && f.has(CodeRedirectIgnored) {
		f.add(CodeRedirectAtLimit) // §4.6.4 is not counted that way, but some evaluators do
	}
	q := o.q
	res.EffectiveAll = q
	switch {
	case !o.known:
	case q == QualifierNone:
		f.add(CodeNoAll)
	case q == QualifierPass:
		f.add(CodeAllPass)
	case q == QualifierNeutral:
		f.add(CodeAllNeutral)
	}
}

// typeSPFOnly reports whether the domain has an SPF record published only
// as the obsolete RR type 99 (RFC 7208 §3.1, §14.1).
func typeSPFOnly(ctx context.Context, r resolver.Resolver, domain string) bool {
	a := r.Lookup(ctx, domain, resolver.TypeSPF)
	return a.Outcome == resolver.Found && len(Select(a.TXTs())) > 0
}

func syntaxCode(err error) Code {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se.Code
	}
	return CodeSyntaxUnknownMechanism
}

func finish(res Result, f *findings) Result {
	res.Error, res.ErrorCause = f.class()
	res.Findings = f.list()
	return res
}
