package spf

import (
	"context"
	"errors"

	"github.com/mailauth/mailauth/resolver"
)

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
	return evaluate(ctx, r, domain, true, domainTXT(ctx, r, domain))
}

// check is Check; ahead false makes the walk start each lookup only when
// it gets to the record that needs it (the sequential reference the tests
// compare with).
func check(ctx context.Context, r resolver.Resolver, domain string, ahead bool) Result {
	domain = resolver.CanonicalName(domain)
	return evaluate(ctx, r, domain, ahead, domainTXT(ctx, r, domain))
}

// domainTXT asks the domain's TXT records, in a small frame: the check
// waits for them under it, and evaluate works out what they say (the
// walk's lookups run in the fetcher's goroutines). Check and check call
// evaluate themselves rather than one through the other, so that one
// Result fewer is in the frames under the lookup.
//
//go:noinline
func domainTXT(ctx context.Context, r resolver.Resolver, domain string) *resolver.Answer {
	ans := new(resolver.Answer)
	*ans = r.Lookup(ctx, domain, resolver.TypeTXT)
	return ans
}

// evaluate is check once the domain's TXT answer ans is in. Not inlined
// (see check).
//
//go:noinline
func evaluate(ctx context.Context, r resolver.Resolver, domain string, ahead bool, ans *resolver.Answer) Result {
	res := Result{LookupLimit: MaxLookups}
	var f findings
	res.Outcome, res.Reason = ans.Outcome, ans.Reason
	if !ans.Conclusive() {
		f.add(CodeTXTInconclusive)
		return finish(res, &f)
	}
	txts := ans.TXTs()
	recs := Select(txts)
	res.RecordCount = new(len(recs))
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
		checkRecord(ctx, r, domain, recs[0], ahead, &res, &f)
	default:
		f.add(CodeMultipleRecords)
	}
	return finish(res, &f)
}

// checkRecord parses the domain's one record and expands it.
func checkRecord(ctx context.Context, r resolver.Resolver, domain, text string, ahead bool, res *Result, f *findings) {
	res.RecordLength = len(text)
	switch {
	case len(text) > MaxRecordSize:
		f.add(CodeRecordTooLong)
	case len(text) > RecordSizeGuideline:
		f.add(CodeRecordLong)
	}
	sh, err := shapeOf(text)
	if err != nil {
		f.add(syntaxCode(err))
		var se *SyntaxError
		if errors.As(err, &se) {
			res.SyntaxTerm = se.Index
		}
		return
	}
	res.All, res.HasRedirect = sh.all, sh.redirect
	ctx, cancel := context.WithCancel(ctx)
	p := newFetcher(ctx, r, domain, ahead)
	defer p.wait()
	defer cancel() // abandon lookups started for terms never reached (before p.wait)
	w := &walker{r: r, p: p, sender: domain, complete: true, f: f}
	o := w.visit(ctx, p.root(domain, &sh), &sh)
	res.LookupCount = new(w.count)
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
