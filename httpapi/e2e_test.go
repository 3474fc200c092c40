package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
)

// labPolicies are the MTA-STS policies served by the loopback lab.
var labPolicies = map[string]string{
	"mta-sts.good.example.com": "version: STSv1\nmode: enforce\nmx: mx1.good.example.com\nmax_age: 604800\n",
}

// NewLabServer is NewTestServer over the real scanner, which resolves
// through the loopback lab's DNS server (testdata/zones/scan.zone of the
// root package) and fetches MTA-STS policies from its HTTPS server.
func NewLabServer(t *testing.T, opts Options) (*TestServer, *testlab.Lab) {
	t.Helper()
	lab := testlab.Start(t, []string{"../testdata/zones/scan.zone"}, labPolicies)
	scanner := mailauth.New(mailauth.Config{
		// Time-outs that bound a hang, not speed: no lab question is
		// dropped, so an answer a loaded machine delivers late is still
		// the answer.
		Resolver:             lab.DNS.PatientClient(),
		HTTPSPort:            lab.HTTPSPort,
		RootCAs:              lab.RootCAs,
		AllowLoopbackTargets: true,
		FetchTimeout:         30 * time.Second,
		ScanTimeout:          time.Minute,
	})
	// Learnt before the first scan, which would wait for the probe only a
	// quarter of its time (dnstest.Server.PatientClient).
	_, known := scanner.ResolverProperties(t.Context())
	require.True(t, known, "the lab resolver answers its probe")
	return NewTestServer(t, scanner, opts), lab
}

// TestRealScannerOverHTTP: live responses of the real scanner, for each
// lab scenario, are valid against openapi.json (checked by ts.Do) and
// carry the contract's headers.
func TestRealScannerOverHTTP(t *testing.T) {
	t.Parallel()
	ts, _ := NewLabServer(t, Options{})
	for _, body := range []string{
		`{"domain":"good.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`,
		`{"domain":"https://Bare.Example.com/contact"}`,
		`{"domain":"postmaster@weak.example.com"}`,
		`{"domain":"parked.example.com"}`,
		`{"domain":"nxdomain.example.com","sendingIp":"2001:4860:4860::8888"}`,
	} {
		r := ts.PostJSON(t, "/api/scan", body)
		assert.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", body, r.Body)
		assert.NotEmpty(t, r.Header.Get("Link"), "%s: %d %s", body, r.StatusCode, r.Body)
		assert.NotEmpty(t, r.Header.Get("X-RateLimit-Remaining"), "%s: %d %s", body, r.StatusCode, r.Body)
	}
	r := ts.PostJSON(t, "/api/scan", `{"domain":"good.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`)
	var sum struct {
		Score int
		Grade string
	}
	assert.NoError(t, json.Unmarshal(r.Body, &sum), "good")
	assert.Equal(t, "A", sum.Grade, "good: %+v", sum)
	assert.Equal(t, 100, sum.Score, "good: %+v", sum)
	for _, ip := range []string{"8.8.8.8", "::ffff:8.8.8.8", "2001:4860:4860::8888"} {
		r := ts.PostJSON(t, "/api/ptr-check", `{"sendingIp":"`+ip+`"}`)
		assert.Equal(t, http.StatusOK, r.StatusCode, "ptr-check %s: %s", ip, r.Body)
	}
}

// TestRealScannerResolverDown: when the only DNS server does not answer,
// the scan is a 500 with the resolver message.
func TestRealScannerResolverDown(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../testdata/zones/scan.zone"}, nil)
	addr := lab.DNS.Addr()
	lab.DNS.Close()
	scanner := mailauth.New(mailauth.Config{
		Resolver:    &resolver.Client{Servers: []string{addr}, Timeout: 200 * time.Millisecond, Attempts: 1},
		ScanTimeout: 5 * time.Second,
	})
	ts := NewTestServer(t, scanner, Options{})
	for _, req := range []struct{ path, body string }{{"/api/scan", scanBody("good.example.com")}, {"/api/ptr-check", ptrBody("8.8.8.8")}} {
		r := ts.PostJSON(t, req.path, req.body)
		if assert.Equal(t, 500, r.StatusCode, "%s: %s", req.path, r.Body) {
			assert.Equal(t, errResolverDown.msg, ErrorMessage(t, r), "%s: %d %s", req.path, r.StatusCode, r.Body)
		}
	}
}

// TestRealScannerGolden: one scan and one ptr-check of the real scanner
// over HTTP, byte for byte (reviewed by hand; the clock is fixed), each
// also validated against openapi.json by ts.Do.
func TestRealScannerGolden(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../testdata/zones/scan.zone"}, labPolicies)
	fixed := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	scanner := mailauth.New(mailauth.Config{
		Resolver:             &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: 30 * time.Second, Attempts: 1}, // a bound on a hang
		HTTPSPort:            lab.HTTPSPort,
		RootCAs:              lab.RootCAs,
		AllowLoopbackTargets: true,
		Now:                  func() time.Time { return fixed },
	})
	ts := NewTestServer(t, scanner, Options{})
	r := ts.PostJSON(t, "/api/scan", `{"domain":"good.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`)
	require.Equal(t, http.StatusOK, r.StatusCode, "scan: %s", r.Body)
	checkGolden(t, "scan-real.json", r.Body)
	checkSample(t, "web/developers/sample-scan.json", r.Body)
	r = ts.PostJSON(t, "/api/ptr-check", `{"sendingIp":"::ffff:8.8.8.8"}`)
	require.Equal(t, http.StatusOK, r.StatusCode, "ptr-check: %s", r.Body)
	checkGolden(t, "ptr-check-real.json", r.Body)
	checkSample(t, "web/developers/sample-ptr-check.json", r.Body)
}
