package dmarc

import (
	"context"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// Discovery is the outcome of policy discovery (the API's policyFound).
type Discovery string

// Discovery outcomes.
const (
	DiscoveryFound        Discovery = "found"        // a policy record was selected (policyFound true)
	DiscoveryNotFound     Discovery = "not_found"    // the walk proved there is none (policyFound false)
	DiscoveryInconclusive Discovery = "inconclusive" // a query was inconclusive before a decision (policyFound null)
)

// Existence says whether the author domain exists (RFC 9989 §3.2.13,
// App. A.4); it decides between the inherited sp and np policies.
type Existence string

// Existence values, the API's domainExistence words.
const (
	Exists           Existence = "exists"      // any answer or NODATA for the domain
	Nonexistent      Existence = "nonexistent" // NXDOMAIN for the domain (RFC 8020)
	ExistenceUnknown Existence = "unknown"     // the lookup was inconclusive
)

// PolicyTag names the tag a policy is taken from (RFC 9989 §4.10.1).
type PolicyTag string

// Policy tags.
const (
	TagP  PolicyTag = "p"  // the domain's own policy
	TagSP PolicyTag = "sp" // inherited by an existing subdomain
	TagNP PolicyTag = "np" // inherited by a non-existent subdomain
)

// Check discovers the DMARC policy of domain by the DNS Tree Walk (RFC
// 9989 §4.10.1). It also asks for the MX records of domain (existence,
// App. A.4) and its TXT records (a misplaced record), concurrently with
// the walk, and, when the selected record sends aggregate reports to
// another organization, for their authorization records (RFC 9990 §3).
// A DNS problem never fails Check: it shows in the Result.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	domain = resolver.CanonicalName(domain)
	d := discover(ctx, r, domain)
	j := d.result(domain)
	if j.selected {
		// Asked from this frame, not result's: result's frame holds the
		// selected record and is 1.5 KB, which took a DMARC check's
		// goroutine past 8 KiB under these lookups (a copy of its
		// stack to 16 KiB every scan).
		j.codes = append(j.codes, external(ctx, r, j.ruaDomain, j.rua)...)
	}
	j.res.Findings = findings.Normalize(j.codes)
	return *j.res
}

// judged is what result makes of a discovery: the Result without its
// findings, the findings so far, and, when a record was selected, its
// policy domain and rua URIs, whose external destinations Check asks
// about.
type judged struct {
	res       *Result
	codes     []Code
	selected  bool
	ruaDomain string
	rua       []URI
}

// discovery is what Check learns from the DNS before it judges: the
// domain's MX and TXT answers and the tree walk. It lives on the heap,
// so that the frames under which the lookups wait stay small.
type discovery struct {
	mx, apex resolver.Answer
	w        walk
}

// discover asks Check's questions: it begins the MX and TXT questions of
// the domain (resolver.Begin) and walks the tree in the caller's
// goroutine, then waits for the two. In a scan the MX and SPF checks ask
// the same two at its start, so both are in flight already; begun here,
// they hold no goroutine waiting on them. Not inlined (see discovery).
//
//go:noinline
func discover(ctx context.Context, r resolver.Resolver, domain string) *discovery {
	d := new(discovery)
	mx := resolver.Begin(ctx, r, domain, resolver.TypeMX)
	apex := resolver.Begin(ctx, r, domain, resolver.TypeTXT)
	d.w.run(ctx, r, domain)
	d.mx = mx.Wait()
	d.apex = apex.Wait()
	return d
}

// result judges what discover found, into a Result on the heap (Check's
// frame, under which the lookups wait, holds none), with the findings
// apart and the selected record's rua URIs for Check to ask about. Not
// inlined (see discovery).
//
//go:noinline
func (d *discovery) result(domain string) judged {
	w := &d.w
	res := &Result{
		Domain:             domain,
		Outcome:            w.direct.Outcome,
		Reason:             w.direct.Reason,
		Discovery:          DiscoveryInconclusive,
		TreeWalkQueries:    w.queries,
		ConflictingRecords: w.conflicting,
		DomainExistence:    existence(d.mx, d.apex, w.direct),
	}
	if w.direct.Conclusive() {
		res.DirectRecordCount = new(w.directCount)
	}
	var codes []Code
	codes = append(codes, w.codes(domain)...)
	if len(Select(d.apex.TXTs())) > 0 {
		codes = append(codes, CodeRecordAtApex)
	}
	j := judged{res: res}
	if !w.inconclusive {
		res.Discovery = DiscoveryNotFound
		if sel := w.choose(domain); sel.ok {
			codes = append(codes, res.apply(sel)...)
			j.selected, j.ruaDomain, j.rua = true, sel.domain, sel.rec.RUA
		}
	}
	j.codes = codes
	return j
}

// codes returns the findings of the walk itself.
func (w walk) codes(domain string) []Code {
	var out []Code
	if w.conflicting {
		out = append(out, CodeMultipleRecords)
	}
	if w.ignored {
		out = append(out, CodeIgnoredRecord)
	}
	if w.missingSep {
		out = append(out, CodeMissingSeparator)
	}
	if w.tooLong {
		out = append(out, CodeNameTooLong)
	}
	if labelCount(domain) > MaxTreeWalk && w.queries > 1 {
		out = append(out, CodeTreeWalkShortcut)
	}
	return out
}

// existence decides whether the author domain exists (RFC 9989 App.
// A.4) from the lookups the scan makes of it anyway (MX and TXT at the
// domain, shared with the mx and spf checks): any answer or NODATA means
// it exists, NXDOMAIN that it does not. An alias whose target is missing
// still exists, and so does a domain with a name below it that was proved
// to exist (the direct _dmarc answer was Found or NODATA).
func existence(mx, apex, direct resolver.Answer) Existence {
	for _, a := range []resolver.Answer{mx, apex, direct} {
		if a.Exists() || (a.Outcome == resolver.NXDomain && len(a.CNAMEs) > 0) {
			return Exists // an answer, NODATA, or an alias: the name exists
		}
	}
	if mx.Outcome == resolver.NXDomain || apex.Outcome == resolver.NXDomain {
		return Nonexistent
	}
	return ExistenceUnknown
}

// apply fills the fields that describe the selected record and returns
// the findings it implies.
func (res *Result) apply(sel selection) []Code {
	rec := sel.rec
	codes := append([]Code(nil), rec.Findings...)
	res.Discovery = DiscoveryFound
	res.PolicyDomain = sel.domain
	res.Inherited = sel.domain != res.Domain
	tag, guessed := policyTag(rec, res.Inherited, res.DomainExistence)
	res.PolicyTag = tag
	switch {
	case rec.ValidPolicies():
		res.Policy = rec.policy(tag)
		if guessed {
			codes = append(codes, CodeExistenceUnknown)
		}
	case rec.HasValidRUA():
		res.Policy, res.UsesNoneFallback = PolicyNone, true
	}
	res.TestMode = rec.T == FlagYes
	res.DKIMAlignment = effective(rec.ADKIM)
	res.SPFAlignment = effective(rec.ASPF)
	res.AggregateReporting = rec.HasValidRUA()
	res.LegacyPctPresent = rec.HasPct
	res.LegacyPct = rec.Pct
	res.BadTag = rec.BadTag
	if sel.psd {
		codes = append(codes, CodePSDPolicy)
	}
	if !res.Inherited && rec.SP == PolicyNone && (rec.P == PolicyReject || rec.P == PolicyQuarantine) {
		codes = append(codes, CodeSubdomainPolicyNone)
	}
	if sel.nearer {
		codes = append(codes, CodeNearerRecordIgnored)
	}
	return codes
}

// policyTag picks the tag that applies (RFC 9989 §4.10.1). guessed
// reports that existence was unknown and mattered: the np policy would
// differ from the one for existing subdomains, which was chosen.
func policyTag(rec Record, inherited bool, ex Existence) (tag PolicyTag, guessed bool) {
	if !inherited {
		return TagP, false
	}
	tag = TagP
	if rec.SP != "" {
		tag = TagSP
	}
	switch {
	case rec.NP == "":
	case ex == Nonexistent:
		return TagNP, false
	case ex == ExistenceUnknown:
		return tag, rec.NP != rec.policy(tag)
	}
	return tag, false
}

// policy returns the value of the given tag.
func (r Record) policy(tag PolicyTag) Policy {
	switch tag {
	case TagSP:
		return r.SP
	case TagNP:
		return r.NP
	}
	return r.P
}

// effective returns the alignment mode receivers use for a record's
// adkim or aspf value: relaxed when the tag is absent.
func effective(a Alignment) Alignment {
	if a == "" {
		return AlignmentRelaxed
	}
	return a
}
