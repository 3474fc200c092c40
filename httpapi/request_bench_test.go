package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// discardRecorder takes the handler's events and keeps none of them.
type discardRecorder struct{}

// Record implements Recorder.
func (discardRecorder) Record(Event) {}

// BenchmarkScanRequest measures one POST /api/scan through the whole
// handler (middleware, decoding, admission, the scan, the response and
// its access-log record and analytics event), the same scan as the root
// package's BenchmarkScan: the fully configured domain, DNS from the
// in-memory resolver, the MTA-STS policy fetched over loopback HTTPS. The
// access log goes to a JSON handler writing nowhere and the events to a
// recorder that drops them, so the figure is the service's own work per
// request less the network and the analytics store:
//
//	go test -run '^$' -bench BenchmarkScanRequest -benchmem ./httpapi/
func BenchmarkScanRequest(b *testing.B) {
	lab := testlab.Start(b, []string{"../testdata/zones/scan.zone"}, labPolicies)
	scanner := mailauth.New(mailauth.Config{
		Resolver:             dnstest.NewResolver(dnstest.MustLoad(b, "../testdata/zones/scan.zone")),
		HTTPSPort:            lab.HTTPSPort,
		RootCAs:              lab.RootCAs,
		AllowLoopbackTargets: true,
	})
	h := New(scanner, Options{
		Limiter:       NewMemoryLimiter(MemoryLimiterOptions{Limit: 1 << 30}),
		SourceBudget:  -1,
		NetworkLimits: []NetworkLimit{},
		Recorder:      discardRecorder{},
		Logger:        slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	const body = `{"domain":"good.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`
	b.ReportAllocs()
	for b.Loop() {
		// Built rather than parsed (httptest.NewRequest reads it through
		// a bufio.Reader of its own), and answered into a writer that
		// keeps no body: the figures are the handler's.
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/api/scan", strings.NewReader(body))
		require.NoError(b, err)
		req.RemoteAddr = "192.0.2.1:1234"
		req.Header.Set("Content-Type", "application/json")
		w := &countingWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
		if w.code != http.StatusOK || w.n == 0 {
			require.Equal(b, http.StatusOK, w.code, "%d bytes", w.n)
		}
	}
}

// countingWriter is an http.ResponseWriter that keeps the status and the
// number of body bytes, not the body.
type countingWriter struct {
	header http.Header
	code   int
	n      int
}

// Header implements http.ResponseWriter.
func (w *countingWriter) Header() http.Header { return w.header }

// WriteHeader implements http.ResponseWriter.
func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

// Write implements http.ResponseWriter.
func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}
