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
func (h *handler) diagnostic(fields []string, next bodyHandler) http.Handler {
	return chain(decodeBody(fields, next), extendWrite, h.rateLimit, requireJSON, limitBody)
}

// rateLimit counts the request against its source address (step 2). It
// sets X-RateLimit-Remaining on every response after it.
func (h *handler) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := sourceAddr(r, h.proxies)
		d, err := h.limiter.Allow(r.Context(), key)
		if err != nil {
			h.obs.RateLimit("error")
			writeError(w, r, errLimiterDown)
			return
		}
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
		if !d.Allowed {
			h.obs.RateLimit("limited")
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(d.Reset)))
			writeError(w, r, errRateLimited)
			return
		}
		if !h.networkAllowed(w, r) {
			h.obs.RateLimit("network_limited")
			return
		}
		h.obs.RateLimit("allowed")
		next.ServeHTTP(w, r)
	})
}

// retryAfterSeconds rounds the time to the window's end up to whole
// seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// requireJSON refuses any Content-Type but application/json (step 3).
// Parameters are allowed; a charset parameter must be utf-8, the only
// encoding JSON has (RFC 8259 §8.1).
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isJSONMediaType(r.Header.Values("Content-Type")) {
			writeError(w, r, errMediaType)
			return
		}
		next.ServeHTTP(w, r)
	})
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
// (chunked bodies, or a Content-Length that lies).
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			writeError(w, r, errTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// decodeBody reads and strictly decodes the JSON body (step 5), then
// checks the utm_source query parameter (step 6, first part).
func decodeBody(fields []string, next bodyHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeError(w, r, errTooLarge)
				return
			}
			writeError(w, r, errBodyRead)
			return
		}
		body, e := decodeObject(raw, fields)
		if e != nil {
			writeError(w, r, *e)
			return
		}
		if e := checkQuery(r.URL.RawQuery); e != nil {
			writeError(w, r, *e)
			return
		}
		next(w, r, body)
	})
}
