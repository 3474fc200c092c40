package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
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

// accessLog writes one record per request to logger (nothing when nil):
// method, route, status, duration, request id and, for errors, the
// catalogue class. It never logs the query string, the body, headers, an
// unknown path or the peer address, so no domain, IP or selector can get
// into the log. The request id is also sent as X-Request-Id.
func accessLog(logger *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := newRequestID()
			w.Header().Set("X-Request-Id", id)
			entry := &logEntry{}
			rec := &statusRecorder{ResponseWriter: w}
			r = r.WithContext(context.WithValue(r.Context(), logEntryKey{}, entry))
			defer func() {
				if logger == nil {
					return
				}
				status := rec.status
				if status == 0 {
					status = http.StatusOK
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
			next.ServeHTTP(rec, r)
		})
	}
}
