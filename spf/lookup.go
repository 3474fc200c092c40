package spf

import (
	"context"
	"sort"

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
// exchanges (§5.4).
func lookupTerm(ctx context.Context, r resolver.Resolver, kind Kind, name string) termResult {
	if kind == KindMX {
		return lookupMX(ctx, r, name)
	}
	return addrResult(r.Lookup(ctx, name, resolver.TypeA))
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

// lookupMX asks for the MX records of name and the A records of the first
// MaxMXNames distinct exchanges, concurrently. More than
// MaxMXNames MX records is over the limit even when they name fewer
// hosts: RFC 7208 §4.6.4 counts the MX resource records, and the OpenSPF
// suite's mx-limit case (eleven records, two hosts) is a permerror. Every
// empty exchange address lookup is a void lookup, as mox and checkdmarc
// count them; a null MX (RFC 7505) has no exchange to look up.
func lookupMX(ctx context.Context, r resolver.Resolver, name string) termResult {
	a := r.Lookup(ctx, name, resolver.TypeMX)
	if !a.Conclusive() || a.Absent() {
		return addrResult(a)
	}
	hosts := exchanges(a.Records)
	res := termResult{mxOver: mxRecordCount(a.Records) > MaxMXNames}
	if len(hosts) > MaxMXNames {
		hosts = hosts[:MaxMXNames]
	}
	pending := make([]*resolver.Pending, len(hosts)) // all begun, then waited in this goroutine
	for i, h := range hosts {
		pending[i] = resolver.Begin(ctx, r, h, resolver.TypeA)
	}
	for _, p := range pending {
		x := addrResult(p.Wait())
		res.voids += x.voids
		res.inconclusive = res.inconclusive || x.inconclusive
		res.found = res.found || x.found
	}
	return res
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
