package httpapi

// Test helpers shared by every test of this package, including the
// end-to-end tests with the real scanner over dnstest:
//
//	ts := NewTestServer(t, mailauth.New(cfg), Options{})
//	resp := ts.PostJSON(t, "/api/scan", `{"domain":"pass.example"}`)
//
// Every response that goes through TestServer.Do is checked against the
// OpenAPI document (status declared for the operation, body and declared
// headers valid against their schemas) and against the headers every
// response must carry.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/report"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestServer is the real handler on a real loopback listener.
type TestServer struct {
	*httptest.Server
	// Clock drives the limiter (when NewTestServer built it) and the
	// health timestamp.
	Clock *TestClock
	// Limiter is the limiter in use.
	Limiter Limiter
	// Log receives the access log (JSON lines).
	Log *SyncBuffer
	// Spec validates responses.
	Spec *Spec
}

// NewTestServer starts New(svc, opts) on 127.0.0.1 like `mailauth serve`
// does (OPTIONS * reaches the handler). When opts.Limiter is nil it gets
// a MemoryLimiter with the default limit on ts.Clock; when opts.Logger is
// nil the access log goes to ts.Log; when opts.Now is nil it is ts.Clock.
func NewTestServer(t testing.TB, svc Service, opts Options) *TestServer {
	t.Helper()
	ts := &TestServer{Clock: NewTestClock(), Log: &SyncBuffer{}, Spec: LoadSpec(t)}
	if opts.Limiter == nil {
		opts.Limiter = NewMemoryLimiter(MemoryLimiterOptions{Now: ts.Clock.Now})
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(ts.Log, nil))
	}
	if opts.Now == nil {
		opts.Now = ts.Clock.Now
	}
	ts.Limiter = opts.Limiter
	ts.Server = httptest.NewUnstartedServer(New(svc, opts))
	ts.Config.DisableGeneralOptionsHandler = true
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// Response is a finished response with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// Do sends req, reads the response, and checks it: the common headers,
// no Access-Control-* header, a JSON body, and validity against the
// OpenAPI document.
func (ts *TestServer) Do(t testing.TB, req *http.Request) Response {
	t.Helper()
	resp, err := ts.Client().Do(req)
	require.NoError(t, err, "%s %s", req.Method, req.URL)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "%s %s: reading body", req.Method, req.URL)
	r := Response{Response: resp, Body: body}
	CheckCommonHeaders(t, r)
	ts.Spec.ValidateResponse(t, req.Method, req.URL.Path, r)
	return r
}

// Request builds a request to path (which may carry a query) on ts.
func (ts *TestServer) Request(t testing.TB, method, path, contentType string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, body)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// PostJSON posts body with Content-Type application/json.
func (ts *TestServer) PostJSON(t testing.TB, path, body string) Response {
	t.Helper()
	return ts.Do(t, ts.Request(t, http.MethodPost, path, "application/json", strings.NewReader(body)))
}

// Get sends a GET.
func (ts *TestServer) Get(t testing.TB, path string) Response {
	t.Helper()
	return ts.Do(t, ts.Request(t, http.MethodGet, path, "", nil))
}

// CheckCommonHeaders asserts what every response carries and never
// carries.
func CheckCommonHeaders(t testing.TB, r Response) {
	t.Helper()
	want := map[string]string{
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Content-Type":           "application/json",
	}
	for k, v := range want {
		assert.Equal(t, v, r.Header.Get(k), "%s %s: %s", r.Request.Method, r.Request.URL.Path, k)
	}
	for k := range r.Header {
		assert.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "%s %s: CORS header %s sent", r.Request.Method, r.Request.URL.Path, k)
	}
}

// ErrorMessage returns the error text of an error body, failing the test
// when the body is not exactly {"error": "..."}.
func ErrorMessage(t testing.TB, r Response) string {
	t.Helper()
	var e report.Error
	dec := jsonDecoder(r.Body)
	require.NoError(t, dec.Decode(&e), "status %d: body %q is not an error object", r.StatusCode, r.Body)
	require.NotEmpty(t, e.Error, "status %d: body %q is not an error object", r.StatusCode, r.Body)
	return e.Error
}

// TestClock is a manual clock, safe for concurrent use.
type TestClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewTestClock starts at a fixed instant.
func NewTestClock() *TestClock {
	return &TestClock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *TestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *TestClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes.
type SyncBuffer = syncbuf.Buffer

// FakeService is a Service for tests. Nil funcs answer the sample
// summaries with the request's inputs echoed.
type FakeService struct {
	ScanFunc    func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error)
	CheckIPFunc func(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error)

	mu    sync.Mutex
	scans []mailauth.ScanRequest
	ips   []netip.Addr
}

// Scan implements Service.
func (f *FakeService) Scan(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
	f.mu.Lock()
	f.scans = append(f.scans, req)
	f.mu.Unlock()
	if f.ScanFunc != nil {
		return f.ScanFunc(ctx, req)
	}
	s := SampleScanSummary()
	if req.DKIMSelector == "" {
		s.DKIMSelector = nil
	}
	if req.SendingIP == "" {
		s.SendingIP = nil
	}
	return s, nil
}

// CheckIP implements Service.
func (f *FakeService) CheckIP(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error) {
	f.mu.Lock()
	f.ips = append(f.ips, ip)
	f.mu.Unlock()
	if f.CheckIPFunc != nil {
		return f.CheckIPFunc(ctx, ip)
	}
	s := SamplePtrCheckSummary()
	s.SendingIP = ip.String()
	return s, nil
}

// Calls returns the requests the service received.
func (f *FakeService) Calls() ([]mailauth.ScanRequest, []netip.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mailauth.ScanRequest(nil), f.scans...), append([]netip.Addr(nil), f.ips...)
}

// rawRequest sends raw bytes on a new connection to ts and returns the
// response (for request targets net/http's client cannot produce, such as
// OPTIONS *).
func rawRequest(t testing.TB, ts *TestServer, raw string) Response {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = io.WriteString(conn, raw)
	require.NoError(t, err)
	req, _ := http.NewRequest(http.MethodOptions, ts.URL, nil)
	resp, err := http.ReadResponse(bufioReader(conn), req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Response{Response: resp, Body: body}
}

// jsonDecoder decodes b strictly (unknown fields are errors).
func jsonDecoder(b []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }
