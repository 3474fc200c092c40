package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
		req := httptest.NewRequest(http.MethodPost, "/api/scan", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Equal(b, http.StatusOK, w.Code, "%s", w.Body)
	}
}
