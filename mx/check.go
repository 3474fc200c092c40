package mx

import (
	"context"
	"sort"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// Check looks up the MX records of domain (an ASCII domain name, any case,
// trailing dot optional) and resolves its exchanges. It never fails: every
// DNS outcome, including an inconclusive one, is reported in the Result.
// Check makes at most 1 + 2 × MaxExchanges lookups through r.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	return *check(ctx, r, resolver.CanonicalName(domain))
}

// check is Check with its result on the heap, and the domain's MX answer
// asked in domainMX: the frames under which the lookups wait (the MX
// question's, and the exchanges' in explicit and implicit) hold neither.
// Not inlined.
//
//go:noinline
func check(ctx context.Context, r resolver.Resolver, domain string) *Result {
	a := domainMX(ctx, r, domain)
	res := &Result{Outcome: a.Outcome, Reason: a.Reason, Validated: a.Conclusive() && a.Authentic}
	if a.Conclusive() {
		res.DomainAliased = len(a.CNAMEs) > 0
	}
	switch a.Outcome {
	case resolver.Found:
		explicit(ctx, r, a.Records, res)
	case resolver.NoData:
		implicit(ctx, r, domain, res)
	case resolver.NXDomain:
		res.Kind = KindNXDomain
	default:
		res.Kind = KindInconclusive
	}
	return res
}

// domainMX asks the domain's MX records, its answer on the heap. Not
// inlined (see check).
//
//go:noinline
func domainMX(ctx context.Context, r resolver.Resolver, domain string) *resolver.Answer {
	a := new(resolver.Answer)
	*a = r.Lookup(ctx, domain, resolver.TypeMX)
	return a
}

// explicit evaluates a Found MX answer. Its frame is under the
// exchanges' lookups: the work before and after them is done in
// exchangesToCheck and tallyExchanges.
func explicit(ctx context.Context, r resolver.Resolver, recs []resolver.Record, res *Result) {
	checked, uses, f := exchangesToCheck(recs, res)
	if f == nil {
		return
	}
	hosts := resolveAll(ctx, r, checked)
	tallyExchanges(hosts, checked, uses, f, res)
}

// exchangesToCheck notes what the records say in res, and returns the
// exchanges to resolve, how often each name is used and the findings so
// far; f is nil when there is nothing to resolve (a null MX). Not
// inlined (see explicit).
//
//go:noinline
func exchangesToCheck(recs []resolver.Record, res *Result) (checked []string, uses map[string]int, f *findings.Set[Code]) {
	res.RecordCount = len(recs)
	names, uses, roots := collect(recs)
	f = new(findings.Set[Code])
	if len(names) == 0 {
		// Only root exchanges: RFC 7505 §3 allows exactly one, at preference 0.
		res.Kind = KindNull
		if len(recs) != 1 || recs[0].Preference != 0 {
			f.Add(CodeNullMXInvalid)
		}
		res.Findings = f.InOrder(order)
		return nil, nil, nil
	}
	res.Kind = KindExplicit
	if roots > 0 {
		f.Add(CodeNullMXMixed)
	}
	res.Exchanges = names
	checked = names
	if len(checked) > MaxExchanges {
		checked = checked[:MaxExchanges]
		f.Add(CodeTooManyExchanges)
	}
	return checked, uses, f
}

// tallyExchanges counts the exchanges' states (hosts, for checked) into
// res, with the findings f. Not inlined (see explicit).
//
//go:noinline
func tallyExchanges(hosts []host, checked []string, uses map[string]int, f *findings.Set[Code], res *Result) {
	for i := range hosts {
		hosts[i].duplicated = uses[checked[i]] > 1
	}
	res.Counts = tally(hosts, len(res.Exchanges))
	addCounts(f, res.Counts, len(res.Exchanges) > len(checked))
	res.Findings = f.InOrder(order)
}

// Exchanges returns the distinct exchange names of a Found MX answer's
// records as Result.Exchanges lists them (lowest preference first, then
// by name; the root left out), so that a caller can start per-exchange
// lookups of its own while Check resolves the addresses.
func Exchanges(recs []resolver.Record) []string {
	names, _, _ := collect(recs)
	return names
}

// collect returns the distinct non-root exchanges ordered by their lowest
// preference and then by name, how many records name each, and how many
// records name the root.
func collect(recs []resolver.Record) (names []string, uses map[string]int, roots int) {
	pref := map[string]uint16{}
	uses = map[string]int{}
	for _, rec := range recs {
		name := resolver.CanonicalName(rec.Target)
		if name == "" {
			roots++
			continue
		}
		if p, ok := pref[name]; !ok || rec.Preference < p {
			pref[name] = rec.Preference
		}
		if uses[name] == 0 {
			names = append(names, name)
		}
		uses[name]++
	}
	sort.Slice(names, func(i, j int) bool {
		if pref[names[i]] != pref[names[j]] {
			return pref[names[i]] < pref[names[j]]
		}
		return names[i] < names[j]
	})
	return names, uses, roots
}

// implicit handles a NODATA MX answer: the domain's own addresses act as
// an implicit MX of preference 0 (RFC 5321 §5.1).
func implicit(ctx context.Context, r resolver.Resolver, domain string, res *Result) {
	a := lookupAddrs(ctx, r, domain)
	a4, a6 := &a[0], &a[1]
	switch {
	case len(a4.Addrs())+len(a6.Addrs()) > 0:
		res.Kind = KindImplicit
	case a4.Absent() && a6.Absent():
		res.Kind = KindNone
		return
	default:
		res.Kind = KindInconclusive
		return
	}
	h := evaluate(a4, a6)
	h.alias = false // an alias at the domain itself is allowed (RFC 5321 §5.1)
	h.notHostname = !isHostname(domain)
	res.Exchanges = []string{domain}
	res.Counts = tally([]host{h}, 1)
	var f findings.Set[Code]
	addCounts(&f, res.Counts, false)
	res.Findings = f.InOrder(order)
}
