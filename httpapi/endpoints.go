package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/internal/report"
)

// linkServiceDesc is the Link header of a scan's 200 (RFC 8631).
const linkServiceDesc = `</openapi.json>; rel="service-desc"`

// openAPIDocument is the service's OpenAPI 3.1.2 description (the
// contract's, internal/report), served byte-for-byte.
var openAPIDocument = report.OpenAPI

// OpenAPIDocument returns a copy of the embedded OpenAPI document.
func OpenAPIDocument() []byte {
	return append([]byte(nil), openAPIDocument...)
}

// scan answers POST /api/scan after the pipeline.
func (h *handler) scan(w http.ResponseWriter, r *http.Request, body map[string]string) {
	req, e := scanRequest(body)
	if e != nil {
		writeError(w, r, *e)
		return
	}
	h.diagnose(w, r, linkServiceDesc, func(ctx context.Context) (encoded, error) {
		if es, ok := h.svc.(EncodedService); ok {
			return scanned(es.ScanEncoded(ctx, req))
		}
		return scanned(scanPlain(ctx, h.svc, req))
	})
}

// scanned is a scan's result as diagnose takes it: an incomplete scan is
// an error (errIncomplete, errIncompleteSlow).
func scanned(sum *mailauth.ScanSummary, body []byte, err error) (encoded, error) {
	switch {
	case err != nil:
		return encoded{}, err
	case sum == nil:
		return encoded{}, errNoSummary
	case sum.Incomplete() && sum.Slow():
		return encoded{}, errIncompleteSlow
	case sum.Incomplete():
		return encoded{}, errIncomplete
	}
	return encoded{sum, body}, nil
}

// scanPlain runs the scan of a Service that is not an EncodedService,
// with the summary on the heap: it is not inlined, so that the summary
// Scan returns by value is in its frame, not in the waiting closure's.
//
//go:noinline
func scanPlain(ctx context.Context, svc Service, req mailauth.ScanRequest) (*mailauth.ScanSummary, []byte, error) {
	sum, err := svc.Scan(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return &sum, nil, nil
}

// checkIPPlain is scanPlain for the PTR check.
//
//go:noinline
func checkIPPlain(ctx context.Context, svc Service, ip netip.Addr) (*mailauth.PTRCheckSummary, []byte, error) {
	sum, err := svc.CheckIP(ctx, ip)
	if err != nil {
		return nil, nil, err
	}
	return &sum, nil, nil
}

// errNoSummary stands for an EncodedService's result with neither a
// summary nor an error: a fault of the service, answered as the generic
// internal error.
var errNoSummary = errors.New("httpapi: the service returned no summary and no error")

// errIncomplete stands for a scan whose evaluated checks are more than
// half undetermined (ScanSummary.Incomplete): its grade would mean
// nothing, so the service answers 500 instead of a 200 that its own
// summary calls meaningless (doc/scoring.md).
var errIncomplete = errors.New("httpapi: scan too incomplete to grade")

// errIncompleteSlow is errIncomplete for a scan that ran out of time
// (ScanSummary.Slow): the domain's servers answered too slowly for this
// scan. Its message says so and blames neither the domain's
// configuration nor the service's resolver (doc/scoring.md).
var errIncompleteSlow = errors.New("httpapi: scan too incomplete to grade: it ran out of time")

// ptrCheck answers POST /api/ptr-check after the pipeline.
func (h *handler) ptrCheck(w http.ResponseWriter, r *http.Request, body map[string]string) {
	raw, ok := body["sendingIp"]
	if !ok {
		writeError(w, r, fieldError("sendingIp", ruleRequired))
		return
	}
	ip, err := mailauth.PTRCheckSendingIP.Normalize(raw)
	if err != nil {
		writeError(w, r, inputError(err))
		return
	}
	h.diagnose(w, r, "", func(ctx context.Context) (encoded, error) {
		if es, ok := h.svc.(EncodedService); ok {
			return checked(es.CheckIPEncoded(ctx, ip))
		}
		return checked(checkIPPlain(ctx, h.svc, ip))
	})
}

// checked is a PTR check's result as diagnose takes it.
func checked(sum *mailauth.PTRCheckSummary, body []byte, err error) (encoded, error) {
	if err != nil {
		return encoded{}, err
	}
	if sum == nil {
		return encoded{}, errNoSummary
	}
	return encoded{sum, body}, nil
}

// diagnose runs one validated diagnostic once it is admitted (acquire) and
// answers with its summary, or with the error that stopped it. A non-empty
// link is sent as the Link header of a successful answer.
//
// The handler's goroutine waits for the diagnostic in this frame, under
// every frame of the middleware and of net/http: diagnose only waits, and
// admission (admitted) and the answer (answer) run in frames of their
// own, gone while it waits. The less of its stack a waiting goroutine
// uses, the smaller the runtime shrinks it (a collection halves a stack
// only while less than a quarter of it is in use).
//
// The answer is written apart (gostack.Apart): net/http's response
// writer goes about 4 KB below this frame, past the 8 KiB the goroutine
// has, and the goroutine lives on with a keep-alive connection, waiting
// about 4 KiB deep for its next request, so a stack grown to 16 KiB
// once would stay 16 KiB (the scan's own deep work runs apart too, see
// mailauth.Scanner.ScanEncoded).
func (h *handler) diagnose(w http.ResponseWriter, r *http.Request, link string, run func(context.Context) (encoded, error)) {
	ctx, release, start := h.admitted(w, r)
	if ctx == nil {
		return
	}
	defer release()
	res, err := run(ctx)
	gostack.Apart(func() { h.answer(w, r, link, start, res, err) })
}

// admitted admits the diagnostic (admit) and returns its context, the
// release of its slot and the time it started; a nil context: it was
// refused, and the refusal is written.
//
//go:noinline
func (h *handler) admitted(w http.ResponseWriter, r *http.Request) (context.Context, func(), time.Time) {
	queued := time.Now()
	ctx, release, retry, e := h.admit(r)
	if e != nil {
		h.obs.Admission(e.class, time.Since(queued))
		if retry > 0 {
			setRetryAfter(w, retry)
		}
		writeError(w, r, *e)
		return nil, nil, time.Time{}
	}
	noted := false
	defer func() {
		if !noted { // the Observer panicked: the slot goes back all the same
			release()
		}
	}()
	start := time.Now()
	h.obs.Admission("admitted", start.Sub(queued))
	noted = true
	return ctx, release, start
}

// answer writes a diagnostic's result, or the error that stopped it. A
// non-empty link is sent as the Link header of a successful answer.
//
//go:noinline
func (h *handler) answer(w http.ResponseWriter, r *http.Request, link string, start time.Time, res encoded, err error) {
	if err != nil {
		writeError(w, r, h.failure(r, err))
		return
	}
	if link != "" {
		w.Header().Set("Link", link)
	}
	kind, checks := checkOutcomes(res.sum)
	h.obs.Diagnostic(kind, time.Since(start), checks)
	h.record(r, res.sum)
	if res.body != nil {
		writeBytes(w, http.StatusOK, res.body)
		return
	}
	writeJSON(w, r, http.StatusOK, res.sum)
}

// encoded is a diagnostic's result: its summary (a *mailauth.ScanSummary
// or *PTRCheckSummary), and the JSON the service encoded and verified
// once (nil from a Service that is not an EncodedService).
type encoded struct {
	sum  any
	body []byte
}

// scanRequest validates the ScanRequest members (step 6): domain is
// required; optional members, when present, must be valid (an empty string
// is present and invalid).
func scanRequest(body map[string]string) (mailauth.ScanRequest, *apiError) {
	domain, ok := body["domain"]
	if !ok {
		e := fieldError("domain", ruleRequired)
		return mailauth.ScanRequest{}, &e
	}
	present := func(key string) *string {
		if v, ok := body[key]; ok {
			return &v
		}
		return nil
	}
	if _, err := mailauth.ValidateScanFields(domain, present("dkimSelector"), present("sendingIp")); err != nil {
		e := inputError(err)
		return mailauth.ScanRequest{}, &e
	}
	return mailauth.ScanRequest{Domain: domain, DKIMSelector: body["dkimSelector"], SendingIP: body["sendingIp"]}, nil
}

// failure maps a Service error; a request whose client went away is noted
// as such in the log.
func (h *handler) failure(r *http.Request, err error) apiError {
	if r.Context().Err() != nil {
		return errCanceledRequest
	}
	return serviceError(err)
}

// health answers GET /api/health. It is not rate limited.
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, report.Health{
		Status:    "ok",
		Version:   h.version,
		Runtime:   "worker",
		Storage:   h.storageState(r.Context()),
		Commerce:  report.CommerceDisabled,
		Timestamp: h.now().UTC(),
	})
}

// storageState is "disabled" without a store, "unavailable" when its ping
// fails within healthPingTimeout, else "ready".
func (h *handler) storageState(ctx context.Context) report.StorageState {
	if h.storage == nil {
		return report.StorageDisabled
	}
	ctx, cancel := context.WithTimeout(ctx, healthPingTimeout)
	defer cancel()
	if err := h.storage.Ping(ctx); err != nil {
		return report.StorageUnavailable
	}
	return report.StorageReady
}

// serveOpenAPI answers GET /openapi.json with the embedded document.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	writeBytes(w, http.StatusOK, openAPIDocument)
}
