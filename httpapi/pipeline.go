package httpapi

import (
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// bodyHandler is a diagnostic endpoint after the pipeline: body holds the
// request's JSON members, all strings, each present at most once.
type bodyHandler func(w http.ResponseWriter, r *http.Request, body map[string]string)

// diagnostic wraps an endpoint in steps 2 to 6 of the pipeline (the mux
// did step 1, the method): rate limit, media type, size, JSON, and the
// utm_source query parameter. Field validation is the endpoint's.
//
// The steps run one after the other in admitBody, whose frame is gone
// when the endpoint runs: the endpoint's goroutine waits for its scan
// under this closure's frame alone (see handler.diagnose).
func (h *handler) diagnostic(fields []string, next bodyHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if body, ok := h.admitBody(w, r, fields); ok {
			next(w, r, body)
		}
	}
}

// admitBody runs steps 2 to 6 in order, after giving the diagnostic the
// server's whole write timeout (extendWrite), and returns the request's
// JSON members; ok false: a step refused the request and wrote its
// answer.
//
//go:noinline
func (h *handler) admitBody(w http.ResponseWriter, r *http.Request, fields []string) (body map[string]string, ok bool) {
	extendWrite(w)
	if !h.rateLimit(w, r) || !requireJSON(w, r) || !limitBody(w, r) {
		return nil, false
	}
	return decodeBody(w, r, fields)
}

// rateLimit counts the request against its source address (step 2) and
// reports whether it may go on. It sets X-RateLimit-Remaining on every
// response after it.
func (h *handler) rateLimit(w http.ResponseWriter, r *http.Request) bool {
	key := sourceAddr(r, h.proxies)
	d, err := h.limiter.Allow(r.Context(), key)
	if err != nil {
		h.obs.RateLimit("error")
		writeError(w, r, errLimiterDown)
		return false
	}
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
	if !d.Allowed {
		h.obs.RateLimit("limited")
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(d.Reset)))
		writeError(w, r, errRateLimited)
		return false
	}
	if !h.networkAllowed(w, r) {
		h.obs.RateLimit("network_limited")
		return false
	}
	h.obs.RateLimit("allowed")
	return true
}

// retryAfterSeconds rounds the time to the window's end up to whole
// seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// requireJSON refuses any Content-Type but application/json (step 3)
// and reports whether the request may go on. Parameters are allowed; a
// charset parameter must be utf-8, the only encoding JSON has (RFC 8259
// §8.1).
func requireJSON(w http.ResponseWriter, r *http.Request) bool {
	if !isJSONMediaType(r.Header.Values("Content-Type")) {
		writeError(w, r, errMediaType)
		return false
	}
	return true
}

// isJSONMediaType reports whether the Content-Type field values name
// application/json (case-insensitive, parameters allowed).
func isJSONMediaType(values []string) bool {
	if len(values) != 1 {
		return false
	}
	mt, params, err := mime.ParseMediaType(values[0])
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// limitBody refuses bodies over MaxBodyBytes (step 4): at once when
// Content-Length says so, and through a hard reader limit otherwise
// (chunked bodies, or a Content-Length that lies). It reports whether
// the request may go on.
func limitBody(w http.ResponseWriter, r *http.Request) bool {
	if r.ContentLength > MaxBodyBytes {
		writeError(w, r, errTooLarge)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	return true
}

// decodeBody reads and strictly decodes the JSON body (step 5), then
// checks the utm_source query parameter (step 6, first part). It
// returns the body's members; ok false: the request was refused, and
// the refusal is written.
func decodeBody(w http.ResponseWriter, r *http.Request, fields []string) (body map[string]string, ok bool) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, r, errTooLarge)
			return nil, false
		}
		writeError(w, r, errBodyRead)
		return nil, false
	}
	body, e := decodeObject(raw, fields)
	if e != nil {
		writeError(w, r, *e)
		return nil, false
	}
	if e := checkQuery(r.URL.RawQuery); e != nil {
		writeError(w, r, *e)
		return nil, false
	}
	return body, true
}
