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

// Result holds the facts Check found. Fields marked "unknown" correspond
// to the API's null. Nothing in it but Policy comes from the wire.
type Result struct {
	// Outcome and Reason are the outcome of the TXT lookup at
	// _mta-sts.<domain>.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// AnnouncementRecordCount is the number of v=STSv1 TXT records; -1
	// (unknown) when Outcome is Inconclusive, 0 when the name has no
	// TXT records or only other ones.
	AnnouncementRecordCount int
	// AnnouncementValid is true when there is exactly one v=STSv1 record
	// and it parses. Unknown when AnnouncementRecordCount is -1.
	AnnouncementValid bool
	// FetchState is the outcome of discovery and fetch; always set.
	FetchState FetchState
	// HTTPStatus is the status code of the policy response, 0 when no
	// HTTP response was received.
	HTTPStatus int
	// PolicyValid is true when the fetched policy is valid (RFC 8461
	// §3.2). Unknown unless FetchState is Fetched.
	PolicyValid bool
	// PolicyMode is the mode of the fetched policy; "" (unknown) when no
	// policy was fetched or its mode field is missing or invalid.
	PolicyMode Mode
	// MaxAge is the valid max_age of the fetched policy in seconds; -1
	// (unknown) when no policy was fetched or max_age is missing or
	// invalid.
	MaxAge int64
	// MXPatternCount is the number of mx fields in the fetched policy,
	// valid or not; -1 (unknown) unless FetchState is Fetched.
	MXPatternCount int
	// Policy is the fetched policy as far as it could be parsed, for
	// Covers and Policy.Matches; the zero Policy unless FetchState is
	// Fetched. It holds MX patterns from the wire: in memory only, never
	// serialise it or show its values.
	Policy Policy
	// Findings lists the finding codes, sorted, without duplicates.
	Findings []Code
}

// Check discovers and fetches the MTA-STS policy of domain (RFC 8461 §3):
// it looks up the TXT announcement at _mta-sts.<domain> (never a parent
// domain, §3.4) and, when there is exactly one valid announcement, fetches
// https://mta-sts.<domain>/.well-known/mta-sts.txt as a careful
// server-side client (see Options and the package documentation). domain
// is an ASCII (A-label) name. Check never looks up MX records: pass the MX
// set you have to Covers.
func Check(ctx context.Context, r resolver.Resolver, domain string, opts Options) Result {
	domain = resolver.CanonicalName(domain)
	res := Result{AnnouncementRecordCount: -1, MaxAge: -1, MXPatternCount: -1}
	ans := r.Lookup(ctx, "_mta-sts."+domain, resolver.TypeTXT)
	res.Outcome, res.Reason = ans.Outcome, ans.Reason
	if !ans.Conclusive() {
		res.FetchState = Inconclusive
		return res
	}
	if !res.announce(ans.TXTs()) {
		return res
	}
	f := fetch(ctx, r, domain, opts)
	res.FetchState, res.HTTPStatus = f.state, f.status
	res.Findings = append(res.Findings, f.codes...)
	if f.state == Fetched {
		res.applyPolicy(f.body, opts)
	}
	res.Findings = findings.Normalize(res.Findings)
	return res
}

// announce evaluates the announcement records (RFC 8461 §3.1) and reports
// whether the policy should be fetched.
func (res *Result) announce(txts []string) bool {
	recs := Select(txts)
	res.AnnouncementRecordCount = len(recs)
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
	res.AnnouncementValid = true
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
	res.PolicyValid = len(rep.errs) == 0
	res.PolicyMode = p.Mode
	res.MaxAge = p.MaxAge
	res.MXPatternCount = len(p.MX)
	res.Findings = append(res.Findings, rep.codes()...)
	if p.MaxAge == 0 {
		res.Findings = append(res.Findings, CodePolicyMaxAgeZero)
	}
}
