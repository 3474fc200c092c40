package httpapi

import (
	"time"

	"github.com/mailauth/mailauth"
)

// Observer receives what the handler does, for metrics. Its methods are
// called on the request path and must return at once. No argument ever
// carries a domain, an address, a selector or a utm value: routes are the
// access log's (unknown paths are "other"), the other strings come from
// fixed sets.
type Observer interface {
	// Request is called once per answered request with the route as the
	// access log names it, the status and the time taken.
	Request(route string, status int, took time.Duration)
	// RateLimit is called once per rate-limit decision of a diagnostic
	// request: "allowed", "limited", "network_limited" or "error".
	RateLimit(decision string)
	// Admission is called once per diagnostic that passed the rate limits
	// with the time it waited for a slot and the outcome: "admitted", or
	// the error class that refused it ("busy", "source_budget",
	// "canceled").
	Admission(outcome string, waited time.Duration)
	// Diagnostic is called once per diagnostic answered 200: its kind
	// ("scan" or "ptr-check"), the time it ran and its checks.
	Diagnostic(kind string, took time.Duration, checks []CheckOutcome)
}

// CheckOutcome is what metrics may know of one check of an answer.
type CheckOutcome struct {
	ID     mailauth.CheckID
	Status mailauth.Status
	// Determination is CheckSummary.Determination: whether the check
	// reached a conclusion, and if not, why.
	Determination mailauth.Determination
	// DNSFault is CheckSummary.DNSFault: the domain-side DNS fault a fail
	// was attributed to.
	DNSFault mailauth.DNSFault
}

// nopObserver is the Observer of a handler configured without one.
type nopObserver struct{}

func (nopObserver) Request(string, int, time.Duration)               {}
func (nopObserver) RateLimit(string)                                 {}
func (nopObserver) Admission(string, time.Duration)                  {}
func (nopObserver) Diagnostic(string, time.Duration, []CheckOutcome) {}

// checkOutcomes lists the checks of a diagnostic's summary.
func checkOutcomes(sum any) (kind string, out []CheckOutcome) {
	var checks []mailauth.CheckSummary
	switch s := sum.(type) {
	case *mailauth.ScanSummary:
		kind, checks = "scan", s.Checks
	case *mailauth.PTRCheckSummary:
		kind, checks = "ptr-check", []mailauth.CheckSummary{s.Check}
	default:
		return "other", nil
	}
	out = make([]CheckOutcome, len(checks))
	for i, c := range checks {
		out[i] = CheckOutcome{ID: c.ID, Status: c.Status, Determination: c.Determination, DNSFault: c.DNSFault}
	}
	return kind, out
}
