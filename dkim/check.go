package dkim

import (
	"context"
	"errors"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// MaxNameLen is the longest DNS name in presentation form, without the
// trailing dot (RFC 1035 §3.1: 255 octets on the wire).
const MaxNameLen = 253

// Name returns the owner name of the key record of selector at domain,
// <selector>._domainkey.<domain> (RFC 6376 §3.6.2.1), lower-case without
// the trailing dot. A selector may contain dots (RFC 6376 §3.1).
func Name(selector, domain string) string {
	return resolver.CanonicalName(selector + "._domainkey." + resolver.CanonicalName(domain))
}

// Check looks up the DKIM key record of selector at domain and reports
// what it finds. It sends exactly one TXT query, for [Name](selector,
// domain); a CNAME there is followed by the resolver. The selector is the
// caller's: Check never guesses one.
//
// domain is an A-label domain name and selector a DKIM selector; a name
// the resolver refuses as invalid yields an inconclusive Result with
// reason resolver.ReasonInvalidName. A valid domain whose key record name
// would be longer than MaxNameLen cannot have that name: no record, no
// query (Outcome NXDomain, CodeNoRecord). Check never fails: every DNS
// outcome is a Result (see [Result] for which facts are unknown when).
func Check(ctx context.Context, r resolver.Resolver, selector, domain string) Result {
	name, early := Question(selector, domain)
	if early != nil {
		return *early
	}
	return Evaluate(r.Lookup(ctx, name, resolver.TypeTXT))
}

// Question returns the name whose TXT record Check asks for, or, when
// that name cannot exist (longer than MaxNameLen while the domain is
// not), the result without asking: Check is Question, the lookup and
// Evaluate, for callers that ask the question themselves.
func Question(selector, domain string) (name string, early *Result) {
	name = Name(selector, domain)
	if len(name) > MaxNameLen && len(resolver.CanonicalName(domain)) <= MaxNameLen {
		res := absent(Result{Outcome: resolver.NXDomain}, resolver.NXDomain)
		return name, &res
	}
	return name, nil
}

// Evaluate is Check's result for a, the answer to Question's TXT lookup.
func Evaluate(a resolver.Answer) Result {
	res := Result{Outcome: a.Outcome, Reason: a.Reason, Aliased: len(a.CNAMEs) > 0}
	if !a.Conclusive() {
		return res
	}
	txts := a.TXTs()
	if len(txts) == 0 {
		return absent(res, a.Outcome)
	}
	facts := recordFacts(txts[0])
	for _, txt := range txts[1:] {
		facts = merge(facts, recordFacts(txt))
	}
	if len(txts) > 1 {
		facts.Findings = append(facts.Findings, CodeMultipleRecords)
	}
	facts.Outcome, facts.Reason, facts.Aliased = res.Outcome, res.Reason, res.Aliased
	facts.RecordCount = new(len(txts))
	facts.Findings = findings.Normalize(facts.Findings)
	return facts
}

// absent fills res for a selector without TXT records: no key is
// published and nothing is revoked; the record's other facts do not apply.
// An alias whose target does not exist is a dangling CNAME.
func absent(res Result, outcome resolver.Outcome) Result {
	res.RecordCount = new(0)
	res.PublicKeyPresent, res.Revoked, res.Usable = new(false), new(false), new(false)
	res.Findings = []Code{CodeNoRecord}
	if res.Aliased && outcome == resolver.NXDomain {
		res.Findings = []Code{CodeDanglingCNAME, CodeNoRecord}
	}
	return res
}

// syntaxCode returns the finding for an error of Parse.
func syntaxCode(err error) Code {
	var se *SyntaxError
	if errors.As(err, &se) && se.Code != "" {
		return se.Code
	}
	return CodeNotDKIMRecord
}
