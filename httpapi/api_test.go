package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/report"
)

// bigLimiter lets a test send many requests without hitting 429.
func bigLimiter() Limiter { return NewMemoryLimiter(MemoryLimiterOptions{Limit: 100000}) }

// invalidCase is one request that must be answered 400.
type invalidCase struct {
	name  string
	path  string // with query
	body  string
	field string // the message must start with this
}

func scanBody(domain string) string { return `{"domain":` + strconv.Quote(domain) + `}` }

func scanWith(field, value string) string {
	return `{"domain":"example.com",` + strconv.Quote(field) + `:` + strconv.Quote(value) + `}`
}

func ptrBody(ip string) string { return `{"sendingIp":` + strconv.Quote(ip) + `}` }

// invalidCases covers every 400 rule of the contract: invalid JSON, each
// field's bounds and forms, utm_source.
var invalidCases = []invalidCase{
	// JSON shape (both endpoints share the decoder).
	{"empty body", "/api/scan", ``, "request body"},
	{"not json", "/api/scan", `not json`, "request body"},
	{"array", "/api/scan", `[]`, "request body"},
	{"string", "/api/scan", `"example.com"`, "request body"},
	{"null body", "/api/scan", `null`, "request body"},
	{"truncated", "/api/scan", `{"domain":"example.com"`, "request body"},
	{"trailing object", "/api/scan", `{"domain":"example.com"}{}`, "request body"},
	{"trailing garbage", "/api/scan", `{"domain":"example.com"} x`, "request body"},
	{"unknown field", "/api/scan", `{"domain":"example.com","extra":1}`, "request body"},
	{"field case differs", "/api/scan", `{"Domain":"example.com"}`, "request body"},
	{"duplicate field", "/api/scan", `{"domain":"example.com","domain":"example.org"}`, "request body"},
	{"invalid utf-8", "/api/scan", "{\"domain\":\"ex\xffample.com\"}", "request body"},
	{"bom", "/api/scan", "\ufeff" + scanBody("example.com"), "request body"},
	// domain.
	{"domain absent", "/api/scan", `{}`, "domain:"},
	{"domain null", "/api/scan", `{"domain":null}`, "domain:"},
	{"domain number", "/api/scan", `{"domain":123}`, "domain:"},
	{"domain array", "/api/scan", `{"domain":["example.com"]}`, "domain:"},
	{"domain object", "/api/scan", `{"domain":{"a":1}}`, "domain:"},
	{"domain bool", "/api/scan", `{"domain":true}`, "domain:"},
	{"domain empty", "/api/scan", scanBody(""), "domain:"},
	{"domain too short", "/api/scan", scanBody("ab"), "domain:"},
	{"domain too long", "/api/scan", scanBody(strings.Repeat("a.", 126) + "ab"), "domain:"},
	{"domain credentialed url", "/api/scan", scanBody("https://user:pw@example.com/"), "domain:"},
	{"domain ftp url", "/api/scan", scanBody("ftp://example.com/"), "domain:"},
	{"domain mailto", "/api/scan", scanBody("mailto:alice@example.com"), "domain:"},
	{"domain ipv4", "/api/scan", scanBody("93.184.216.34"), "domain:"},
	{"domain ipv6 literal", "/api/scan", scanBody("[2606:4700::1]"), "domain:"},
	{"domain url ip", "/api/scan", scanBody("http://93.184.216.34/"), "domain:"},
	{"domain short numeric", "/api/scan", scanBody("127.1"), "domain:"},
	{"domain hex numeric", "/api/scan", scanBody("0x7f.0.0.1"), "domain:"},
	{"domain integer", "/api/scan", scanBody("2130706433"), "domain:"},
	{"domain single label", "/api/scan", scanBody("localhost"), "domain:"},
	{"domain empty label", "/api/scan", scanBody("example..com"), "domain:"},
	{"domain space", "/api/scan", scanBody("exa mple.com"), "domain:"},
	{"domain empty local part", "/api/scan", scanBody("@example.com"), "domain:"},
	{"domain address literal", "/api/scan", scanBody("alice@[93.184.216.34]"), "domain:"},
	{"domain label too long", "/api/scan", scanBody(strings.Repeat("a", 64) + ".example.com"), "domain:"},
	{"domain special use", "/api/scan", scanBody("mail.example.test"), "domain:"},
	{"domain bad punycode", "/api/scan", scanBody("xn--zz.example.com"), "domain:"},
	{"domain underscore", "/api/scan", scanBody("exa_mple.com"), "domain:"},
	// dkimSelector.
	{"selector null", "/api/scan", `{"domain":"example.com","dkimSelector":null}`, "dkimSelector:"},
	{"selector number", "/api/scan", `{"domain":"example.com","dkimSelector":1}`, "dkimSelector:"},
	{"selector empty", "/api/scan", scanWith("dkimSelector", ""), "dkimSelector:"},
	{"selector leading hyphen", "/api/scan", scanWith("dkimSelector", "-s1"), "dkimSelector:"},
	{"selector slash", "/api/scan", scanWith("dkimSelector", "s1/s2"), "dkimSelector:"},
	{"selector too long", "/api/scan", scanWith("dkimSelector", strings.Repeat("s", 64)), "dkimSelector:"},
	{"selector non-ascii", "/api/scan", scanWith("dkimSelector", "sélecteur"), "dkimSelector:"},
	// sendingIp in a scan.
	{"scan ip null", "/api/scan", `{"domain":"example.com","sendingIp":null}`, "sendingIp:"},
	{"scan ip empty", "/api/scan", scanWith("sendingIp", ""), "sendingIp:"},
	{"scan ip private", "/api/scan", scanWith("sendingIp", "10.0.0.1"), "sendingIp:"},
	{"scan ip loopback", "/api/scan", scanWith("sendingIp", "127.0.0.1"), "sendingIp:"},
	{"scan ip link-local", "/api/scan", scanWith("sendingIp", "169.254.10.1"), "sendingIp:"},
	{"scan ip documentation", "/api/scan", scanWith("sendingIp", "192.0.2.1"), "sendingIp:"},
	{"scan ip v6 documentation", "/api/scan", scanWith("sendingIp", "2001:db8::1"), "sendingIp:"},
	{"scan ip v6 loopback", "/api/scan", scanWith("sendingIp", "::1"), "sendingIp:"},
	{"scan ip zone", "/api/scan", scanWith("sendingIp", "fe80::1%eth0"), "sendingIp:"},
	{"scan ip short form", "/api/scan", scanWith("sendingIp", "8.8.8"), "sendingIp:"},
	{"scan ip leading zero", "/api/scan", scanWith("sendingIp", "008.8.8.8"), "sendingIp:"},
	{"scan ip mapped private", "/api/scan", scanWith("sendingIp", "::ffff:10.0.0.1"), "sendingIp:"},
	{"scan ip too long", "/api/scan", scanWith("sendingIp", strings.Repeat("1", 46)), "sendingIp:"},
	{"scan ip hostname", "/api/scan", scanWith("sendingIp", "mail.example.com"), "sendingIp:"},
	// utm_source.
	{"utm upper case", "/api/scan?utm_source=Newsletter", scanBody("example.com"), "utm_source:"},
	{"utm empty", "/api/scan?utm_source=", scanBody("example.com"), "utm_source:"},
	{"utm leading dot", "/api/scan?utm_source=.x", scanBody("example.com"), "utm_source:"},
	{"utm too long", "/api/scan?utm_source=" + strings.Repeat("a", 65), scanBody("example.com"), "utm_source:"},
	{"utm repeated", "/api/scan?utm_source=a&utm_source=b", scanBody("example.com"), "utm_source:"},
	{"utm on ptr-check", "/api/ptr-check?utm_source=a%20b", ptrBody("8.8.8.8"), "utm_source:"},
	{"query malformed", "/api/scan?utm_source=%zz", scanBody("example.com"), "query string"},
	// ptr-check.
	{"ptr empty object", "/api/ptr-check", `{}`, "sendingIp:"},
	{"ptr null", "/api/ptr-check", `{"sendingIp":null}`, "sendingIp:"},
	{"ptr unknown field", "/api/ptr-check", `{"sendingIp":"8.8.8.8","domain":"example.com"}`, "request body"},
	{"ptr too short", "/api/ptr-check", ptrBody("ab"), "sendingIp:"},
	{"ptr too long", "/api/ptr-check", ptrBody(strings.Repeat("1", 48)), "sendingIp:"},
	{"ptr private", "/api/ptr-check", ptrBody("192.168.1.1"), "sendingIp:"},
	{"ptr cgnat", "/api/ptr-check", ptrBody("100.64.0.1"), "sendingIp:"},
	{"ptr multicast", "/api/ptr-check", ptrBody("224.0.0.1"), "sendingIp:"},
	{"ptr ula", "/api/ptr-check", ptrBody("fd00::1"), "sendingIp:"},
	{"ptr unspecified", "/api/ptr-check", ptrBody("0.0.0.0"), "sendingIp:"},
	{"ptr broadcast", "/api/ptr-check", ptrBody("255.255.255.255"), "sendingIp:"},
	{"ptr not an ip", "/api/ptr-check", ptrBody("not-an-ip"), "sendingIp:"},
	{"ptr bracketed", "/api/ptr-check", ptrBody("[2606:4700::1]"), "sendingIp:"},
	{"ptr spaces", "/api/ptr-check", ptrBody(" 8.8.8.8 "), "sendingIp:"},
}

// TestInvalidInputs sends every invalid input over HTTP: 400, an Error
// body naming the field, no part of the input echoed, the service never
// called, and the response valid against openapi.json.
func TestInvalidInputs(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, len(invalidCases), 40, "only %d invalid inputs", len(invalidCases))
	svc := &FakeService{}
	ts := NewTestServer(t, svc, Options{Limiter: bigLimiter()})
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.PostJSON(t, tc.path, tc.body)
			require.Equal(t, http.StatusBadRequest, r.StatusCode, "body %s", r.Body)
			msg := ErrorMessage(t, r)
			assert.True(t, strings.HasPrefix(msg, tc.field), "message %q does not start with %q", msg, tc.field)
			assertNoEcho(t, msg, tc.body)
		})
	}
	scans, ips := svc.Calls()
	assert.Zero(t, len(scans)+len(ips), "service called for invalid input: %v %v", scans, ips)
}

// assertNoEcho fails when the message contains a quoted string value of
// the request body (values of at least 4 characters).
func assertNoEcho(t *testing.T, msg, body string) {
	t.Helper()
	parts := strings.Split(body, `"`)
	for i := 3; i < len(parts); i += 4 { // values sit at positions 3, 7, ...
		if v := parts[i]; len(v) >= 4 {
			assert.NotContains(t, msg, v, "message %q echoes input %q", msg, v)
		}
	}
}

// TestValidInputs shows that accepted forms reach the service as sent.
func TestValidInputs(t *testing.T) {
	t.Parallel()
	svc := &FakeService{}
	ts := NewTestServer(t, svc, Options{Limiter: bigLimiter()})
	cases := []struct{ path, ct, body string }{
		{"/api/scan", "application/json", scanBody("example.com")},
		{"/api/scan", "application/json; charset=utf-8", scanBody("https://example.com/path?q=1")},
		{"/api/scan", "Application/JSON;Charset=UTF-8", scanBody("alice@例子.example.com")},
		{"/api/scan?utm_source=news.letter_1-a&other=x", "application/json", " \n" + scanBody("Example.COM.") + "\n "},
		{"/api/scan", "application/json", `{"domain":"example.com","dkimSelector":"s1._x-y","sendingIp":"2606:4700:4700::1111"}`},
		{"/api/ptr-check", "application/json", ptrBody("::ffff:8.8.8.8")},
		{"/api/ptr-check?utm_source=" + strings.Repeat("a", 64), "application/json", ptrBody("2606:4700:4700:0:0:0:0:1111")},
	}
	for _, c := range cases {
		r := ts.Do(t, ts.Request(t, http.MethodPost, c.path, c.ct, strings.NewReader(c.body)))
		assert.Equal(t, http.StatusOK, r.StatusCode, "POST %s %s: (%s)", c.path, c.body, r.Body)
	}
	scans, ips := svc.Calls()
	if assert.Len(t, scans, 5, "scans = %+v", scans) {
		assert.Equal(t, mailauth.ScanRequest{Domain: "example.com", DKIMSelector: "s1._x-y", SendingIP: "2606:4700:4700::1111"}, scans[4], "scans = %+v", scans)
	}
	assert.Equal(t, "https://example.com/path?q=1", scans[1].Domain, "domain should reach the service as sent (it normalizes)")
	want := []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("2606:4700:4700::1111")}
	assert.Equal(t, want, ips, "ips (normalized, unmapped)")
}

// TestMediaType: 415 for everything but application/json.
func TestMediaType(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{Limiter: bigLimiter()})
	for _, ct := range []string{"", "text/plain", "application/jsonx", "application/x-json", "json",
		"text/json", "application/json; charset=latin1", "multipart/form-data; boundary=x",
		"application/x-www-form-urlencoded", "application/ld+json", "*/*"} {
		for _, path := range []string{"/api/scan", "/api/ptr-check"} {
			r := ts.Do(t, ts.Request(t, http.MethodPost, path, ct, strings.NewReader(scanBody("example.com"))))
			assert.Equal(t, http.StatusUnsupportedMediaType, r.StatusCode, "%s with Content-Type %q", path, ct)
			assert.Equal(t, errMediaType.msg, ErrorMessage(t, r), "message")
		}
	}
	req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("example.com")))
	req.Header.Add("Content-Type", "application/json")
	r := ts.Do(t, req)
	assert.Equal(t, http.StatusUnsupportedMediaType, r.StatusCode, "two Content-Type fields")
}

// paddedScan returns a valid scan body of exactly n bytes.
func paddedScan(t *testing.T, n int) []byte {
	base := scanBody("example.com")
	require.GreaterOrEqual(t, n, len(base), "n too small")
	return []byte(base + strings.Repeat(" ", n-len(base)))
}

// TestBodySize: 413 above 8 KiB, by Content-Length and by the hard limit
// on a chunked body; exactly 8 KiB is accepted.
func TestBodySize(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{Limiter: bigLimiter()})
	for _, chunked := range []bool{false, true} {
		for _, tc := range []struct {
			n    int
			want int
		}{{MaxBodyBytes, 200}, {MaxBodyBytes + 1, 413}, {1 << 20, 413}} {
			var body io.Reader = bytes.NewReader(paddedScan(t, tc.n))
			if chunked {
				body = io.MultiReader(body) // no length known: chunked encoding
			}
			req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", body)
			if chunked {
				require.Zero(t, req.ContentLength, "length known: the request would not be chunked")
			}
			r := ts.Do(t, req)
			assert.Equal(t, tc.want, r.StatusCode, "chunked=%v %d bytes", chunked, tc.n)
			if tc.want == 413 {
				assert.Equal(t, errTooLarge.msg, ErrorMessage(t, r), "413 message %q", r.Body)
			}
		}
	}
	r := ts.Do(t, ts.Request(t, http.MethodPost, "/api/ptr-check", "application/json", bytes.NewReader(make([]byte, MaxBodyBytes+1))))
	assert.Equal(t, 413, r.StatusCode, "ptr-check 8193 bytes")
}

// TestMethodNotAllowed: every other method on every route is 405 with
// Allow, including OPTIONS preflights, which get no CORS header.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	routes := map[string][]string{
		"/api/scan":      {"GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"},
		"/api/ptr-check": {"GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"},
		"/api/health":    {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"},
		"/openapi.json":  {"POST", "PUT", "DELETE", "OPTIONS"},
	}
	for path, methods := range routes {
		allow := "POST"
		if !strings.HasPrefix(path, "/api/scan") && path != "/api/ptr-check" {
			allow = "GET, HEAD"
		}
		for _, m := range methods {
			req := ts.Request(t, m, path, "application/json", strings.NewReader(scanBody("example.com")))
			req.Header.Set("Origin", "https://evil.example")
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type")
			r := ts.Do(t, req)
			assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode, "%s %s: Allow %q", m, path, r.Header.Get("Allow"))
			assert.Equal(t, allow, r.Header.Get("Allow"), "%s %s: status %d", m, path, r.StatusCode)
			assert.Empty(t, r.Header.Get("X-RateLimit-Remaining"), "%s %s: a 405 must not be counted", m, path)
		}
	}
	r := rawRequest(t, ts, "OPTIONS * HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nConnection: close\r\n\r\n")
	CheckCommonHeaders(t, r)
	assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode, "OPTIONS *")
}

// TestNotFound: unknown paths are JSON 404s.
func TestNotFound(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	for _, p := range []string{"/index.html", "/static/", "/developers/", "/api", "/api/scan/", "/api/scans", "/API/SCAN", "/openapi.yaml", "/api/health/x"} {
		r := ts.Get(t, p)
		if assert.Equal(t, http.StatusNotFound, r.StatusCode, "GET %s: body %s", p, r.Body) {
			assert.Equal(t, "not found", ErrorMessage(t, r), "GET %s: status %d body %s", p, r.StatusCode, r.Body)
		}
	}
}

// TestUncleanPaths: paths ServeMux would redirect are JSON 404s that do
// not echo the path.
func TestUncleanPaths(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	for _, target := range []string{"/api/../api/health", "//api/health", "/api/health/.", "/api//scan"} {
		r := rawRequest(t, ts, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		CheckCommonHeaders(t, r)
		if assert.Equal(t, http.StatusNotFound, r.StatusCode, "GET %s: Location %q body %s", target, r.Header.Get("Location"), r.Body) &&
			assert.Empty(t, r.Header.Get("Location"), "GET %s: %d body %s", target, r.StatusCode, r.Body) {
			assert.Equal(t, "not found", ErrorMessage(t, r), "GET %s: %d Location %q body %s", target, r.StatusCode, r.Header.Get("Location"), r.Body)
		}
	}
	r := rawRequest(t, ts, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
	assert.Equal(t, http.StatusNotFound, r.StatusCode, "CONNECT: %s", r.Body)
}

// TestNoCORS: a cross-origin POST succeeds as a plain request, without any
// Access-Control-* header (checked on every response by ts.Do).
func TestNoCORS(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	for _, path := range []string{"/api/scan", "/api/health", "/openapi.json"} {
		m := http.MethodGet
		if path == "/api/scan" {
			m = http.MethodPost
		}
		req := ts.Request(t, m, path, "application/json", strings.NewReader(scanBody("example.com")))
		req.Header.Set("Origin", "https://evil.example")
		r := ts.Do(t, req)
		assert.Equal(t, http.StatusOK, r.StatusCode, "%s %s", m, path)
	}
}

// TestScanOK: 200 with the Link and X-RateLimit-Remaining headers, the
// service's summary as JSON without HTML escaping, a request id.
func TestScanOK(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	r := ts.PostJSON(t, "/api/scan", `{"domain":"example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`)
	require.Equal(t, 200, r.StatusCode, "body %s", r.Body)
	assert.Equal(t, `</openapi.json>; rel="service-desc"`, r.Header.Get("Link"), "Link")
	assert.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "X-RateLimit-Remaining")
	assert.True(t, bytes.Contains(r.Body, []byte("<well> & aligned")), "HTML escaping is on: %s", r.Body)
	want, _ := Encode(SampleScanSummary())
	assert.Equal(t, string(want), string(r.Body), "body differs from Encode(summary)")
	id := r.Header.Get("X-Request-Id")
	assert.Len(t, id, 16, "X-Request-Id = %q", id)
	r = ts.PostJSON(t, "/api/ptr-check", ptrBody("8.8.8.8"))
	const ptrMsg = "ptr-check: status %d Link %q remaining %q"
	assert.Equal(t, 200, r.StatusCode, ptrMsg, r.StatusCode, r.Header.Get("Link"), r.Header.Get("X-RateLimit-Remaining"))
	assert.Empty(t, r.Header.Get("Link"), ptrMsg, r.StatusCode, r.Header.Get("Link"), r.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "28", r.Header.Get("X-RateLimit-Remaining"), ptrMsg, r.StatusCode, r.Header.Get("Link"), r.Header.Get("X-RateLimit-Remaining"))
}

// TestRateLimit: remaining counts 29..0 across both endpoints, the 31st
// request is 429 with Retry-After, and the window resets after 60 s.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	for i := range 30 {
		path, body := "/api/scan", scanBody("example.com")
		if i%2 == 1 {
			path, body = "/api/ptr-check", ptrBody("8.8.8.8")
		}
		r := ts.PostJSON(t, path, body)
		require.Equal(t, 200, r.StatusCode, "request %d: remaining %q", i+1, r.Header.Get("X-RateLimit-Remaining"))
		require.Equal(t, strconv.Itoa(29-i), r.Header.Get("X-RateLimit-Remaining"), "request %d: status %d", i+1, r.StatusCode)
		ts.Clock.Advance(time.Second)
	}
	for _, path := range []string{"/api/scan", "/api/ptr-check"} {
		r := ts.PostJSON(t, path, scanBody("example.com"))
		require.Equal(t, http.StatusTooManyRequests, r.StatusCode, "31st request to %s", path)
		assert.Equal(t, "30", r.Header.Get("Retry-After"), "Retry-After, want 30 (60 s window opened 30 s ago)")
		assert.Equal(t, errRateLimited.msg, ErrorMessage(t, r), "429 body %s", r.Body)
	}
	health := ts.Get(t, "/api/health")
	assert.Equal(t, 200, health.StatusCode, "health is limited")
	ts.Clock.Advance(29*time.Second + 500*time.Millisecond)
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, 429, r.StatusCode, "0.5 s before the end: Retry-After %q", r.Header.Get("Retry-After"))
	assert.Equal(t, "1", r.Header.Get("Retry-After"), "0.5 s before the end: status %d", r.StatusCode)
	ts.Clock.Advance(500 * time.Millisecond)
	r = ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, 200, r.StatusCode, "after the window: remaining %q", r.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "after the window: status %d", r.StatusCode)
}

// TestRateLimitCountsInvalid: invalid requests (400, 413, 415) count too.
func TestRateLimitCountsInvalid(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	for i := range 30 {
		var r Response
		switch i % 3 {
		case 0:
			r = ts.PostJSON(t, "/api/scan", `{}`)
		case 1:
			r = ts.Do(t, ts.Request(t, http.MethodPost, "/api/scan", "text/plain", strings.NewReader("x")))
		default:
			r = ts.Do(t, ts.Request(t, http.MethodPost, "/api/ptr-check", "application/json", bytes.NewReader(make([]byte, MaxBodyBytes+1))))
		}
		require.Equal(t, strconv.Itoa(29-i), r.Header.Get("X-RateLimit-Remaining"), "request %d (%d): remaining", i+1, r.StatusCode)
	}
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, 429, r.StatusCode, "valid 31st request")
}

// TestRateLimitPerSource: X-Forwarded-For separates clients only behind
// a trusted proxy.
func TestRateLimitPerSource(t *testing.T) {
	t.Parallel()
	send := func(ts *TestServer, xff string) Response {
		req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("example.com")))
		req.Header.Set("X-Forwarded-For", xff)
		return ts.Do(t, req)
	}
	trusted := NewTestServer(t, &FakeService{}, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for i := range 30 {
		send(trusted, "203.0.113.7")
		_ = i
	}
	r := send(trusted, "203.0.113.7")
	assert.Equal(t, 429, r.StatusCode, "same forwarded client")
	r = send(trusted, "198.51.100.9, 203.0.113.8")
	assert.Equal(t, 200, r.StatusCode, "other forwarded client: %q", r.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "other forwarded client: %d", r.StatusCode)
	untrusted := NewTestServer(t, &FakeService{}, Options{})
	send(untrusted, "203.0.113.1")
	r = send(untrusted, "203.0.113.2")
	assert.Equal(t, "28", r.Header.Get("X-RateLimit-Remaining"), "X-Forwarded-For from an untrusted peer must be ignored")
}

// TestRateLimitIPv6Per64: two IPv6 clients in one /64 share one count
// (one subscriber holds the whole /64 and could otherwise take a fresh
// address per request); a client in another /64 has its own.
func TestRateLimitIPv6Per64(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	send := func(xff string) Response {
		req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("example.com")))
		req.Header.Set("X-Forwarded-For", xff)
		return ts.Do(t, req)
	}
	r := send("2001:db8:1:2::a")
	require.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "first: %d", r.StatusCode)
	assert.Equal(t, "28", send("2001:db8:1:2:ffff:1:2:3").Header.Get("X-RateLimit-Remaining"), "same /64 not counted together")
	assert.Equal(t, "29", send("2001:db8:1:3::a").Header.Get("X-RateLimit-Remaining"), "other /64 shares the count")
	assert.Equal(t, "29", send("::ffff:203.0.113.7").Header.Get("X-RateLimit-Remaining"), "mapped IPv4")
	assert.Equal(t, "28", send("203.0.113.7").Header.Get("X-RateLimit-Remaining"), "IPv4 and its mapped form counted apart")
}

// failingLimiter is a limiter whose store is down.
type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string) (Decision, error) {
	return Decision{}, errors.New("dial tcp 10.0.0.5:6379: connection refused")
}

// TestLimiterDown: a limiter error is 500 on the diagnostic endpoints,
// health still answers.
func TestLimiterDown(t *testing.T) {
	t.Parallel()
	svc := &FakeService{}
	ts := NewTestServer(t, svc, Options{Limiter: failingLimiter{}})
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	if assert.Equal(t, 500, r.StatusCode, "body %s", r.Body) {
		assert.Equal(t, errLimiterDown.msg, ErrorMessage(t, r), "status %d body %s", r.StatusCode, r.Body)
	}
	scans, _ := svc.Calls()
	assert.Empty(t, scans, "request let through without counting")
	r = ts.Get(t, "/api/health")
	assert.Equal(t, 200, r.StatusCode, "health")
}

// TestServiceErrors maps the Service's errors: input errors are 400 with
// their fixed text, resolver failures and anything else 500 without the
// error's text.
func TestServiceErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err    error
		status int
		msg    string
	}{
		{&mailauth.InputError{Field: "domain", Rule: "special_use"}, 400, "domain: special-use and local names are not accepted"},
		{fmt.Errorf("wrapped: %w", &mailauth.InputError{Field: "sendingIp", Rule: "not_public_private"}), 400, "sendingIp: not a public address (private range)"},
		{&mailauth.InputError{Field: "secret.example.com", Rule: "x"}, 400, "request: invalid input"},
		{mailauth.ErrResolverUnavailable, 500, errResolverDown.msg},
		{fmt.Errorf("scan secret.example.com: %w", mailauth.ErrResolverUnavailable), 500, errResolverDown.msg},
		{errors.New("lookup secret.example.com on 10.0.0.1: boom"), 500, "internal error"},
		{context.DeadlineExceeded, 500, "internal error"},
	}
	for _, tc := range cases {
		svc := &FakeService{
			ScanFunc: func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
				return mailauth.ScanSummary{}, tc.err
			},
			CheckIPFunc: func(context.Context, netip.Addr) (mailauth.PTRCheckSummary, error) {
				return mailauth.PTRCheckSummary{}, tc.err
			},
		}
		ts := NewTestServer(t, svc, Options{})
		for _, req := range []struct{ path, body string }{{"/api/scan", scanBody("example.com")}, {"/api/ptr-check", ptrBody("8.8.8.8")}} {
			r := ts.PostJSON(t, req.path, req.body)
			if assert.Equal(t, tc.status, r.StatusCode, "%v on %s: %s", tc.err, req.path, r.Body) {
				assert.Equal(t, tc.msg, ErrorMessage(t, r), "%v on %s: %d %s", tc.err, req.path, r.StatusCode, r.Body)
			}
			assert.NotContains(t, string(r.Body), "secret", "error text leaked: body %s", r.Body)
			assert.NotContains(t, ts.Log.String(), "secret", "error text leaked: log %s", ts.Log.String())
		}
	}
}

// TestPanicIs500: a panicking service yields the generic 500.
func TestPanicIs500(t *testing.T) {
	t.Parallel()
	svc := &FakeService{ScanFunc: func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		panic("secret.example.com")
	}}
	ts := NewTestServer(t, svc, Options{})
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	if assert.Equal(t, 500, r.StatusCode, "body %s", r.Body) {
		assert.Equal(t, "internal error", ErrorMessage(t, r), "status %d body %s", r.StatusCode, r.Body)
	}
	assert.Contains(t, ts.Log.String(), `"error":"panic"`, "log")
	assert.NotContains(t, ts.Log.String(), "secret", "log")
}

// TestConcurrencyBound: beyond MaxInFlight a request waits QueueWait,
// then gets 500; a slot freed in time lets it run.
func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	// blocking is a service whose scans hold their slot until released.
	blocking := func() (*FakeService, chan struct{}, chan struct{}) {
		release := make(chan struct{})
		started := make(chan struct{}, 4)
		return &FakeService{ScanFunc: func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return SampleScanSummary(), nil
		}}, release, started
	}
	t.Run("refused after QueueWait", func(t *testing.T) {
		t.Parallel()
		svc, release, started := blocking()
		ts := NewTestServer(t, svc, Options{MaxInFlight: 1, QueueWait: 100 * time.Millisecond})
		first := make(chan Response, 1)
		go func() { first <- ts.PostJSON(t, "/api/scan", scanBody("example.com")) }()
		<-started
		t0 := time.Now()
		r := ts.PostJSON(t, "/api/ptr-check", ptrBody("8.8.8.8"))
		if assert.Equal(t, 500, r.StatusCode, "second request: %s, want 500 busy", r.Body) {
			assert.Equal(t, errBusy.msg, ErrorMessage(t, r), "second request: %d %s, want 500 busy", r.StatusCode, r.Body)
		}
		assert.GreaterOrEqual(t, time.Since(t0), 100*time.Millisecond, "refused before QueueWait")
		close(release)
		assert.Equal(t, 200, (<-first).StatusCode, "first")
	})
	t.Run("a freed slot goes to the waiting request", func(t *testing.T) {
		t.Parallel()
		// A queue wait no loaded machine outlasts: the waiting request
		// must get the slot the first one frees, whenever that is.
		svc, release, started := blocking()
		ts := NewTestServer(t, svc, Options{MaxInFlight: 1, QueueWait: time.Minute})
		first := make(chan Response, 1)
		go func() { first <- ts.PostJSON(t, "/api/scan", scanBody("example.com")) }()
		<-started
		second := make(chan Response, 1)
		go func() { second <- ts.PostJSON(t, "/api/scan", scanBody("example.org")) }()
		time.Sleep(20 * time.Millisecond) // usually queued by then; either way it must run
		release <- struct{}{}             // first finishes, its slot goes to the waiting one
		assert.Equal(t, 200, (<-first).StatusCode, "first")
		select {
		case <-started:
		case r := <-second:
			require.Failf(t, "the waiting request never ran", "%d %s", r.StatusCode, r.Body)
		}
		close(release)
		r := <-second
		assert.Equal(t, 200, r.StatusCode, "queued request: %s", r.Body)
	})
}

type pingFunc func(context.Context) error

func (f pingFunc) Ping(ctx context.Context) error { return f(ctx) }

// TestHealth: the fields of Health, storage states, HEAD, not limited.
func TestHealth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		storage Storage
		want    report.StorageState
	}{
		{nil, "disabled"},
		{pingFunc(func(context.Context) error { return errors.New("down") }), "unavailable"},
		{pingFunc(func(context.Context) error { return nil }), "ready"},
	}
	for _, tc := range cases {
		ts := NewTestServer(t, &FakeService{}, Options{Storage: tc.storage})
		for range 40 {
			ts.Get(t, "/api/health")
		}
		r := ts.Get(t, "/api/health")
		var h report.Health
		err := jsonDecoder(r.Body).Decode(&h)
		require.NoError(t, err, "status %d body %s", r.StatusCode, r.Body)
		require.Equal(t, 200, r.StatusCode, "body %s", r.Body)
		want := report.Health{Status: "ok", Version: "devel", Runtime: "worker", Storage: tc.want, Commerce: "disabled", Timestamp: ts.Clock.Now()}
		assert.Equal(t, want, h, "health")
		assert.Empty(t, r.Header.Get("X-RateLimit-Remaining"), "health carries a rate-limit header")
		head := ts.Do(t, ts.Request(t, http.MethodHead, "/api/health", "", nil))
		assert.Equal(t, 200, head.StatusCode, "HEAD: %d bytes", len(head.Body))
		assert.Empty(t, head.Body, "HEAD: %d, %d bytes", head.StatusCode, len(head.Body))
		r = ts.PostJSON(t, "/api/scan", scanBody("example.com"))
		assert.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "health requests were counted")
	}
	ts := NewTestServer(t, &FakeService{}, Options{Version: "v1.2.3"})
	r := ts.Get(t, "/api/health")
	assert.True(t, bytes.Contains(r.Body, []byte(`"version":"v1.2.3"`)), "version option ignored: %s", r.Body)
}

// TestOpenAPIServed: GET returns the embedded bytes as application/json,
// HEAD the same length without a body.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	r := ts.Get(t, "/openapi.json")
	assert.Equal(t, 200, r.StatusCode, "status")
	assert.True(t, bytes.Equal(r.Body, openAPIDocument), "body equal %v", bytes.Equal(r.Body, openAPIDocument))
	head := ts.Do(t, ts.Request(t, http.MethodHead, "/openapi.json", "", nil))
	assert.Equal(t, int64(len(openAPIDocument)), head.ContentLength, "HEAD: length")
	assert.Empty(t, head.Body, "HEAD: body %d bytes", len(head.Body))
	assert.True(t, bytes.Equal(OpenAPIDocument(), openAPIDocument), "OpenAPIDocument differs")
}
