package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// logEntry collects what the access log may say about one request.
type logEntry struct {
	errClass string
}

type logEntryKey struct{}

// noteError records the catalogue class of the error a request ended
// with, for the access log.
func noteError(r *http.Request, class string) {
	if e, ok := r.Context().Value(logEntryKey{}).(*logEntry); ok {
		e.errClass = class
	}
}

// statusRecorder remembers the status written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// newRequestID returns 8 random bytes in hex.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestID is the X-Request-Id a trusted proxy sent (idProxies holds the
// peer), when it is 16 to 64 letters, digits or '-' (nginx's $request_id
// is 32 hex digits), else a new one.
func requestID(r *http.Request, idProxies []netip.Prefix) string {
	if len(idProxies) == 0 {
		return newRequestID()
	}
	v := r.Header.Get("X-Request-Id")
	if !validRequestID(v) || !peerTrusted(r, idProxies) {
		return newRequestID()
	}
	return v
}

// validRequestID reports whether v may be logged as a request id.
func validRequestID(v string) bool {
	if len(v) < 16 || len(v) > 64 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && c != '-' {
			return false
		}
	}
	return true
}

// peerTrusted reports whether the TCP peer of r is in proxies.
func peerTrusted(r *http.Request, proxies []netip.Prefix) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a := ap.Addr().Unmap()
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// accessLog writes one record per request to logger (nothing when nil):
// method, route, status, duration, request id and, for errors, the
// catalogue class, and tells obs. It never logs the query string, the
// body, headers, an unknown path or the peer address, so no domain, IP
// or selector can get into the log. The request id (a trusted proxy's,
// see requestID, else a new one) is also sent as X-Request-Id.
func accessLog(logger *slog.Logger, obs Observer, idProxies []netip.Prefix) Middleware {
	return func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := requestID(r, idProxies)
			w.Header().Set("X-Request-Id", id)
			entry := &logEntry{}
			rec := &statusRecorder{ResponseWriter: w}
			r = r.WithContext(context.WithValue(r.Context(), logEntryKey{}, entry))
			defer func() {
				status := rec.status
				if status == 0 {
					status = http.StatusOK
				}
				obs.Request(logRoute(r.URL.Path), status, time.Since(start))
				if logger == nil {
					return
				}
				attrs := []slog.Attr{
					slog.String("method", logMethod(r.Method)),
					slog.String("path", logRoute(r.URL.Path)),
					slog.Int("status", status),
					slog.Duration("duration", time.Since(start)),
					slog.String("request_id", id),
				}
				if entry.errClass != "" {
					attrs = append(attrs, slog.String("error", entry.errClass))
				}
				logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
			}()
			next(rec, r)
		}
	}
}
