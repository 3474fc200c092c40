package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
)

// TestAccessLogHasNoInputs sends requests full of canary values through
// every status the service produces and proves that the access log holds
// one record per request with only the allowed fields, and none of the
// canaries: no domain, selector, IP, query string, unknown path, header
// or error text.
func TestAccessLogHasNoInputs(t *testing.T) {
	t.Parallel()
	svc := &FakeService{ScanFunc: func(_ context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		if strings.HasPrefix(req.Domain, "fail") {
			return mailauth.ScanSummary{}, &mailauth.InputError{Field: "domain", Rule: "idna"}
		}
		return SampleScanSummary(), nil
	}, CheckIPFunc: func(context.Context, netip.Addr) (mailauth.PTRCheckSummary, error) {
		return mailauth.PTRCheckSummary{}, mailauth.ErrResolverUnavailable
	}}
	ts := NewTestServer(t, svc, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	canaries := []string{"canary-domain", "canaryselector", "9.9.9.9", "2620:fe::9", "canary-utm", "canary-path", "203.0.113.77", "127.0.0.1", "canary-ua"}
	send := func(method, path, ct, body string) {
		req := ts.Request(t, method, path, ct, strings.NewReader(body))
		req.Header.Set("X-Forwarded-For", "203.0.113.77")
		req.Header.Set("User-Agent", "canary-ua")
		ts.Do(t, req)
	}
	sent := 0
	for _, r := range []struct{ method, path, ct, body string }{
		{"POST", "/api/scan?utm_source=canary-utm", "application/json", `{"domain":"canary-domain.example.com","dkimSelector":"canaryselector","sendingIp":"9.9.9.9"}`},
		{"POST", "/api/scan?utm_source=canary-utm", "application/json", `{"domain":"fail.canary-domain.example.com"}`},
		{"POST", "/api/ptr-check?utm_source=canary-utm", "application/json", `{"sendingIp":"2620:fe::9"}`},
		{"POST", "/api/scan", "application/json", `{"domain":"canary-domain.invalid"}`},
		{"POST", "/api/scan", "application/json", `{"domain":"canary-domain.example.com","x":"canary-utm"}`},
		{"POST", "/api/scan", "text/canary-path", `{"domain":"canary-domain.example.com"}`},
		{"POST", "/api/scan", "application/json", `{"domain":"canary-domain.example.com"}` + strings.Repeat(" ", MaxBodyBytes)},
		{"GET", "/api/scan?canary-utm", "", ""},
		{"GET", "/canary-path/canary-domain.example.com/9.9.9.9", "", ""},
		{"GET", "/api/health?canary-utm=9.9.9.9", "", ""},
		{"GET", "/openapi.json", "", ""},
	} {
		send(r.method, r.path, r.ct, r.body)
		sent++
	}
	for range 30 {
		send("POST", "/api/scan?utm_source=canary-utm", "application/json", `{"domain":"canary-domain.example.com"}`)
		sent++
	}
	log := ts.Log.String()
	for _, c := range canaries {
		assert.NotContains(t, log, c, "access log contains %q", c)
	}
	lines := strings.Split(strings.TrimSpace(log), "\n")
	require.Len(t, lines, sent, "log records for %d requests", sent)
	allowed := []string{"time", "level", "msg", "method", "path", "status", "duration", "request_id", "error"}
	statuses := map[float64]bool{}
	for _, l := range lines {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &rec), "%q", l)
		for k := range rec {
			assert.Contains(t, allowed, k, "unexpected log field %q in %s", k, l)
		}
		for _, k := range allowed[3:8] {
			assert.Contains(t, rec, k, "missing log field %q in %s", k, l)
		}
		statuses[rec["status"].(float64)] = true
	}
	for _, s := range []float64{200, 400, 404, 405, 413, 415, 429, 500} {
		assert.True(t, statuses[s], "no request ended with %v; the test does not cover it", s)
	}
	assert.Contains(t, log, `"path":"other"`, "log lacks the unknown-path record")
	assert.Contains(t, log, `"error":"resolver_unavailable"`, "log lacks the error class record")
}

// TestLogRouteAndMethod: only known paths and methods are logged as such.
func TestLogRouteAndMethod(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"/api/scan": "/api/scan", "/openapi.json": "/openapi.json", "/x/example.com": "other", "": "other"} {
		assert.Equal(t, want, logRoute(in), "logRoute(%q)", in)
	}
	for in, want := range map[string]string{http.MethodPost: "POST", "EXAMPLE.COM": "OTHER"} {
		assert.Equal(t, want, logMethod(in), "logMethod(%q)", in)
	}
}
