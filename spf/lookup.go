package spf

import (
	"context"
	"sort"
	"sync"

	"github.com/mailauth/mailauth/resolver"
)

// termResult is what the lookups of one a, mx or exists term found.
type termResult struct {
	voids        int  // NODATA/NXDOMAIN answers (the term's own and mx exchange lookups)
	inconclusive bool // a lookup was inconclusive
	mxOver       bool // the MX set has more than MaxMXNames records
	found        bool // an address was found: the a or exists name, or an exchange of mx
}

// awaitTerm returns the result of started term lookups, or runs them now
// when none were started.
func awaitTerm(ctx context.Context, r resolver.Resolver, ch <-chan termResult, kind Kind, name string) termResult {
	if ch == nil {
		return lookupTerm(ctx, r, kind, name)
	}
	return <-ch
}

// lookupTerm does what an evaluator does for a term and an IPv4 client
// that matches nothing: `a` and `exists` ask for A records (§5.3, §5.7),
// `mx` for the MX records and then the A records of at most MaxMXNames
// exchanges (§5.4). It waits for startTermLookups.
func lookupTerm(ctx context.Context, r resolver.Resolver, kind Kind, name string) termResult {
	ch := make(chan termResult, 1)
	startTermLookups(ctx, r, kind, name, func(res termResult) { ch <- res })
	return <-ch
}

func addrResult(a resolver.Answer) termResult {
	switch {
	case !a.Conclusive():
		return termResult{inconclusive: true}
	case a.Absent():
		return termResult{voids: 1}
	}
	return termResult{found: true}
}

// startTermLookups starts what lookupTerm does, over r's Start: done
// gets the term's result once, when its last answer is in (an mx term's
// exchanges are started from its MX answer, all at once). A panic in the
// work on an answer, which would otherwise leave the walk waiting, makes
// the result inconclusive.
func startTermLookups(ctx context.Context, r resolver.Resolver, kind Kind, name string, done func(termResult)) {
	var once sync.Once
	finish := func(res termResult) { once.Do(func() { done(res) }) }
	guard := func() {
		if v := recover(); v != nil {
			finish(termResult{inconclusive: true})
		}
	}
	defer guard() // a Start that panics before its done: the term is inconclusive, not left waiting
	if kind != KindMX {
		resolver.Start(ctx, r, name, resolver.TypeA, func(a resolver.Answer) {
			defer guard()
			finish(addrResult(a))
		})
		return
	}
	resolver.Start(ctx, r, name, resolver.TypeMX, func(a resolver.Answer) {
		defer guard()
		startExchanges(ctx, r, a, finish, guard)
	})
}

// startExchanges goes on with an mx term from its MX answer a: finish
// gets the term's result once the A answers of its first MaxMXNames
// distinct exchanges are in, asked at once (at once when there is
// nothing to ask). More than MaxMXNames MX records is over the limit
// even when they name fewer hosts: RFC 7208 §4.6.4 counts the MX resource
// records, and the OpenSPF suite's mx-limit case (eleven records, two
// hosts) is a permerror. Every empty exchange address lookup is a void
// lookup, as mox and checkdmarc count them; a null MX (RFC 7505) has no
// exchange to look up. guard, deferred
// in each answer's work, takes a panic there.
func startExchanges(ctx context.Context, r resolver.Resolver, a resolver.Answer, finish func(termResult), guard func()) {
	if !a.Conclusive() || a.Absent() {
		finish(addrResult(a))
		return
	}
	hosts := exchanges(a.Records)
	if len(hosts) > MaxMXNames {
		hosts = hosts[:MaxMXNames]
	}
	var mu sync.Mutex
	res := termResult{mxOver: mxRecordCount(a.Records) > MaxMXNames}
	left := len(hosts)
	if left == 0 {
		finish(res)
		return
	}
	for _, h := range hosts {
		resolver.Start(ctx, r, h, resolver.TypeA, func(a resolver.Answer) {
			defer guard()
			x := addrResult(a)
			mu.Lock()
			res.voids += x.voids
			res.inconclusive = res.inconclusive || x.inconclusive
			res.found = res.found || x.found
			left--
			last, got := left == 0, res
			mu.Unlock()
			if last {
				finish(got)
			}
		})
	}
}

// mxRecordCount is the number of MX records of an answer, the null MX
// not counted.
func mxRecordCount(recs []resolver.Record) int {
	n := 0
	for _, rr := range recs {
		if rr.Type == resolver.TypeMX && rr.Target != "" {
			n++
		}
	}
	return n
}

// exchanges returns the distinct exchange names of MX records in
// preference order (then by name), without the null MX.
func exchanges(recs []resolver.Record) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range exchangeRecords(recs) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// exchangeRecords returns the exchange name of every MX record in
// preference order (then by name), duplicates included, without the null
// MX: one entry per record that mxRecordCount counts.
func exchangeRecords(recs []resolver.Record) []string {
	sorted := append([]resolver.Record(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Preference != sorted[j].Preference {
			return sorted[i].Preference < sorted[j].Preference
		}
		return sorted[i].Target < sorted[j].Target
	})
	var out []string
	for _, rr := range sorted {
		if rr.Type == resolver.TypeMX && rr.Target != "" {
			out = append(out, rr.Target)
		}
	}
	return out
}
