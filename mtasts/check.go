package mtasts

import (
	"context"
	"errors"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// FetchState is the outcome of the policy discovery and fetch, as the
// API's policyFetchState reports it (doc/rfc-notes.md §6.5).
type FetchState string

// Fetch states.
const (
	NotAnnounced FetchState = "not_announced" // no v=STSv1 TXT record at _mta-sts
	NotAttempted FetchState = "not_attempted" // several announcements, or the one is invalid
	Fetched      FetchState = "fetched"       // a 200 response body was read
	Unreachable  FetchState = "unreachable"   // no usable public address, or connection, TLS, redirect, status or size rule failed
	Inconclusive FetchState = "inconclusive"  // DNS for the TXT record or the policy host was inconclusive, or the fetch timed out
)

// Check discovers and fetches the MTA-STS policy of domain (RFC 8461 §3):
// it looks up the TXT announcement at _mta-sts.<domain> (never a parent
// domain, §3.4) and, when there is exactly one valid announcement, fetches
// https://mta-sts.<domain>/.well-known/mta-sts.txt as a careful
// server-side client (see Options and the package documentation). domain
// is an ASCII (A-label) name. Check never looks up MX records: pass the MX
// set you have to Covers.
func Check(ctx context.Context, r resolver.Resolver, domain string, opts Options) Result {
	return *check(ctx, r, resolver.CanonicalName(domain), &opts)
}

// check is Check with its result on the heap: the frames under which the
// announcement's and the policy host's lookups wait hold no Result. Not
// inlined.
//
//go:noinline
func check(ctx context.Context, r resolver.Resolver, domain string, opts *Options) *Result {
	res := new(Result)
	ans := askAnnouncement(ctx, r, domain)
	res.Outcome, res.Reason = ans.Outcome, ans.Reason
	if !ans.Conclusive() {
		res.FetchState = Inconclusive
		return res
	}
	if !res.announce(ans.TXTs()) {
		return res
	}
	f := fetch(ctx, r, domain, *opts)
	res.FetchState, res.HTTPStatus = f.state, f.status
	res.Findings = append(res.Findings, f.codes...)
	if f.state == Fetched {
		res.applyPolicy(f.body, *opts)
	}
	res.Findings = findings.Normalize(res.Findings)
	return res
}

// askAnnouncement asks the TXT records at _mta-sts.<domain>, its answer on
// the heap. Not inlined (see check).
//
//go:noinline
func askAnnouncement(ctx context.Context, r resolver.Resolver, domain string) *resolver.Answer {
	a := new(resolver.Answer)
	*a = r.Lookup(ctx, RecordName(domain), resolver.TypeTXT)
	return a
}

// RecordName returns the name of domain's MTA-STS announcement, whose
// TXT records Check asks first (RFC 8461 §3.1): _mta-sts.<domain>.
func RecordName(domain string) string { return "_mta-sts." + domain }

// PolicyHost returns the host Check fetches domain's policy from, whose
// A and AAAA records it asks (RFC 8461 §3.3): mta-sts.<domain>.
func PolicyHost(domain string) string { return "mta-sts." + domain }

// Fetches reports whether Check fetches the policy (and so asks the A and
// AAAA records of PolicyHost) once its announcement question has answer
// a: the answer is conclusive and holds exactly one valid announcement.
// A caller that asks them before Check runs (the scan's first questions)
// asks what Check will.
func Fetches(a resolver.Answer) bool {
	var res Result
	return a.Conclusive() && res.announce(a.TXTs())
}

// announce evaluates the announcement records (RFC 8461 §3.1) and reports
// whether the policy should be fetched.
func (res *Result) announce(txts []string) bool {
	recs := Select(txts)
	res.AnnouncementRecordCount, res.AnnouncementValid = new(len(recs)), new(false)
	switch {
	case len(recs) == 0:
		res.FetchState = NotAnnounced
		return false
	case len(recs) > 1:
		res.FetchState = NotAttempted
		res.Findings = []Code{CodeAnnouncementMultiple}
		return false
	}
	rec, err := ParseRecord(recs[0])
	if err != nil {
		res.FetchState = NotAttempted
		var se *SyntaxError
		if errors.As(err, &se) {
			res.Findings = []Code{se.Code}
		}
		return false
	}
	*res.AnnouncementValid = true
	if rec.HasDuplicates() {
		res.Findings = append(res.Findings, CodeAnnouncementDuplicateField)
	}
	return true
}

// applyPolicy parses a fetched body and fills in the policy facts.
func (res *Result) applyPolicy(body string, opts Options) {
	rep := parsePolicy(body)
	for _, l := range rep.lines {
		opts.observe(l)
	}
	for _, mx := range rep.policy.MX {
		opts.observe(mx)
	}
	p := rep.policy
	res.Policy = p
	res.PolicyValid = new(len(rep.errs) == 0)
	res.PolicyMode = p.Mode
	if p.MaxAge != nil {
		res.MaxAge = new(*p.MaxAge)
	}
	res.MXPatternCount = new(len(p.MX))
	res.Findings = append(res.Findings, rep.codes()...)
	if p.MaxAge != nil && *p.MaxAge == 0 {
		res.Findings = append(res.Findings, CodePolicyMaxAgeZero)
	}
}
