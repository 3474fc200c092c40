package caa

import (
	"context"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// MaxNameLen is the longest DNS name in presentation form, without the
// trailing dot (RFC 1035 §3.1: 255 octets on the wire).
const MaxNameLen = 253

// Check finds the relevant CAA record sets (RFC 8659 §3) of domain (an
// ASCII domain name, any case, trailing dot optional) and of
// mta-sts.<domain>, and evaluates them. The two searches run concurrently;
// the MTA-STS host's search asks its own name and, when that has no CAA
// records, takes the domain's search, which is exactly its continuation.
// Check never fails: every DNS outcome is reported in the Result.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	domain = resolver.CanonicalName(domain)
	if domain == "" {
		bad := Set{Outcome: resolver.Inconclusive, Reason: resolver.ReasonInvalidName}
		return Result{Domain: bad, MTASTS: bad}
	}
	host := MTASTSHost(domain)
	if len(domain) <= MaxNameLen && len(host) > MaxNameLen {
		return Result{Domain: climb(ctx, r, domain), MTASTS: Set{Outcome: resolver.NXDomain}}
	}
	first := resolver.Begin(ctx, r, host, resolver.TypeCAA) // beside the climb, in this goroutine
	dom := climb(ctx, r, domain)
	return Result{Domain: dom, MTASTS: continueWith(first.Wait(), dom)}
}

// MTASTSHost is the MTA-STS policy host of domain (RFC 8461 §3.3),
// whose CAA set Check searches beside the domain's.
func MTASTSHost(domain string) string { return "mta-sts." + domain }

// ClimbNext returns the name whose CAA records Check's search for name
// (canonical) asks after its question number i (0: name itself) got
// answer a, and whether it asks one: the next ancestor, while the
// answers are conclusive and empty and MaxClimb allows; none for a
// negative i. A caller that asks them before Check runs (the scan's
// first questions) asks what Check will.
func ClimbNext(name string, i int, a resolver.Answer) (string, bool) {
	if i < 0 {
		return "", false
	}
	if _, done := step(a, i); done {
		return "", false
	}
	labels := strings.Split(name, ".")
	if i+1 >= min(len(labels), MaxClimb) {
		return "", false
	}
	return strings.Join(labels[i+1:], "."), true
}

// climb performs the relevant-record-set search for name: it asks name
// and then each ancestor but the root, and stops at the first non-empty
// answer or the first inconclusive one, after at most MaxClimb lookups.
// It asks what ClimbNext says, so the scan's questions asked ahead of
// Check are its own.
func climb(ctx context.Context, r resolver.Resolver, name string) Set {
	q, n := name, 0
	for {
		a := r.Lookup(ctx, q, resolver.TypeCAA)
		if s, done := step(a, n); done {
			return s
		}
		next, ok := ClimbNext(name, n, a)
		n++
		if !ok {
			break
		}
		q = next
	}
	if n < strings.Count(name, ".")+1 {
		return Set{Outcome: resolver.Inconclusive, Reason: resolver.ReasonBudgetExhausted, Lookups: n,
			Findings: []Code{CodeClimbTruncated}}
	}
	return emptySet(n)
}

// step looks at the answer for the i-th name of a climb (0 is the name
// itself) and tells whether the climb ends there.
func step(a resolver.Answer, i int) (Set, bool) {
	switch {
	case a.Outcome == resolver.Found:
		s := evaluate(a.Records)
		s.Lookups, s.Inherited, s.ViaCNAME = i+1, i > 0, len(a.CNAMEs) > 0
		return s, true
	case !a.Conclusive():
		return Set{Outcome: resolver.Inconclusive, Reason: a.Reason, Lookups: i + 1}, true
	}
	return Set{}, false
}

// continueWith completes the MTA-STS host's search: its own answer first,
// then the domain's search.
func continueWith(first resolver.Answer, dom Set) Set {
	if s, done := step(first, 0); done {
		return s
	}
	s := dom
	s.Lookups++
	s.Inherited = s.Outcome == resolver.Found
	s.Findings = append([]Code(nil), dom.Findings...)
	return s
}

// emptySet is the result of a search that found no CAA records: no
// restriction, any CA may issue (RFC 8659 §3).
func emptySet(lookups int) Set {
	return Set{Outcome: resolver.NoData, Lookups: lookups, CanIssue: true, CanIssueWildcard: true}
}
