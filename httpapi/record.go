package httpapi

import (
	"net/http"
	"time"

	"github.com/mailauth/mailauth"
)

// Endpoint names of an Event.
const (
	EndpointScan     = "scan"      // POST /api/scan
	EndpointPtrCheck = "ptr-check" // POST /api/ptr-check
)

// Recorder receives one Event per diagnostic that answered 200. Record is
// called on the request's goroutine before the response is written, so it
// must not block or fail: an analytics store queues and hashes, and drops
// what it cannot keep.
type Recorder interface {
	Record(Event)
}

// Event describes one answered diagnostic. It carries raw values (the
// domain, the client): a Recorder must hash them before anything is
// stored or logged.
type Event struct {
	// Time is when the diagnostic answered (Options.Now).
	Time time.Time
	// Endpoint is EndpointScan or EndpointPtrCheck.
	Endpoint string
	// Domain is the normalized ASCII domain of a scan; "" for a ptr-check.
	Domain string
	// Client is the request's source as the rate limiter counts it: an
	// IPv4 address or the /64 of an IPv6 address.
	Client string
	// UTMSource is the validated utm_source query parameter; "" when
	// absent.
	UTMSource string
	// Grade is the scan's grade; "" for a ptr-check and for a scan too
	// incomplete to be graded (ScanSummary.Incomplete).
	Grade string
	// Checks are the statuses of the checks that ran, in answer order.
	Checks []CheckStatus
}

// CheckStatus is the status of one check of an Event.
type CheckStatus struct {
	ID string // a check id (mailauth.CheckOrder)
	// Status is pass, warn, fail or info, or StatusUndetermined for a
	// check that reached no conclusion (reported as warn on the wire).
	Status string
}

// StatusUndetermined is the CheckStatus of a check that reached no
// conclusion: analytics count it apart from the warnings it is reported
// as.
const StatusUndetermined = "undetermined"

// checkStatus is the analytics status of c, from its typed determination.
func checkStatus(c mailauth.CheckSummary) CheckStatus {
	if c.Undetermined() {
		return CheckStatus{ID: string(c.ID), Status: StatusUndetermined}
	}
	return CheckStatus{ID: string(c.ID), Status: string(c.Status)}
}

// record hands the Event of a successful diagnostic to the Recorder, if
// any.
func (h *handler) record(r *http.Request, sum any) {
	if h.rec == nil {
		return
	}
	e := Event{Time: h.now().UTC(), Client: sourceAddr(r, h.proxies), UTMSource: r.URL.Query().Get("utm_source")}
	switch s := sum.(type) {
	case *mailauth.ScanSummary:
		e.Endpoint, e.Domain = EndpointScan, s.Domain
		if !s.Incomplete() {
			e.Grade = string(s.Grade)
		}
		for _, c := range s.Checks {
			e.Checks = append(e.Checks, checkStatus(c))
		}
	case *mailauth.PTRCheckSummary:
		e.Endpoint = EndpointPtrCheck
		e.Checks = []CheckStatus{checkStatus(s.Check)}
	default:
		return
	}
	h.rec.Record(e)
}
