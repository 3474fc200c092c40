package tlsrpt

import (
	"context"
	"errors"
	"strings"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// Check looks up the TLS-RPT record of domain at _smtp._tls.<domain>
// (RFC 8460 §3; CNAMEs are followed by the resolver) and reports what it
// found. domain is an ASCII (A-label) name. Check does one DNS lookup and
// nothing else.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	return Evaluate(r.Lookup(ctx, Name(domain), resolver.TypeTXT))
}

// Name is the name whose TXT record Check asks for: _smtp._tls.<domain>.
func Name(domain string) string { return "_smtp._tls." + resolver.CanonicalName(domain) }

// HasNone reports whether ans, the answer to the TXT lookup of Name,
// is conclusive and holds no TLS-RPT record (Evaluate then counts none).
func HasNone(ans resolver.Answer) bool {
	return ans.Conclusive() && len(Select(ans.TXTs())) == 0
}

// Evaluate is Check's result for ans, the answer to the TXT lookup of
// Name: Check is the lookup and Evaluate, for callers that ask the
// question themselves.
func Evaluate(ans resolver.Answer) Result {
	res := Result{Outcome: ans.Outcome, Reason: ans.Reason}
	if !ans.Conclusive() {
		return res
	}
	recs := Select(ans.TXTs())
	res.RecordCount, res.RecordValid, res.Configured = new(len(recs)), new(false), new(false)
	res.DestinationCount, res.MailtoDestinationCount, res.HTTPSDestinationCount = new(0), new(0), new(0)
	switch {
	case len(recs) == 0:
		return res
	case len(recs) > 1:
		res.Findings = []Code{CodeMultipleRecords}
		return res
	}
	rec, err := Parse(recs[0])
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			res.Findings = []Code{se.Code}
		}
		return res
	}
	*res.RecordValid = true
	res.countDestinations(rec)
	return res
}

// countDestinations classifies the rua URIs of a valid record.
func (res *Result) countDestinations(rec Record) {
	var codes []Code
	if rec.RUAFieldCount() > 1 {
		codes = append(codes, CodeDuplicateRUA)
	}
	seen := map[string]bool{}
	invalid := 0
	for _, uri := range rec.RUA {
		k := Classify(uri)
		if !k.Valid() {
			invalid++
			codes = append(codes, k.code())
			continue
		}
		key := destinationKey(uri)
		if seen[key] {
			codes = append(codes, CodeDuplicateDestination)
			continue
		}
		seen[key] = true
		*res.DestinationCount++
		if k == KindMailto {
			*res.MailtoDestinationCount++
		} else {
			*res.HTTPSDestinationCount++
		}
	}
	*res.Configured = *res.DestinationCount > 0
	switch {
	case invalid > 0 && *res.Configured:
		codes = append(codes, CodeSomeInvalidDestinations)
	case !*res.Configured:
		codes = append(codes, CodeNoValidDestinations)
	}
	res.Findings = findings.Normalize(codes)
}

// destinationKey identifies a destination for de-duplication: the URI
// with its scheme lower-cased.
func destinationKey(uri string) string {
	scheme, rest, _ := strings.Cut(uri, ":")
	return strings.ToLower(scheme) + ":" + rest
}
