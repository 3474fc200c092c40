package redislimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/keyed"
	"github.com/mailauth/mailauth/internal/redistest"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// The handler's fixed messages these tests expect (httpapi's error
// catalogue).
const (
	msgLimiterDown    = "rate limiter temporarily unavailable"
	msgNetworkLimited = "rate limit exceeded for this source network; retry after the number of seconds in Retry-After"
)

// freeLoopbackPort returns a TCP port that was free on 127.0.0.1.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts a throw-away redis-server (internal/redistest) and
// returns its URL.
func startRedis(t *testing.T) string { return redistest.Start(t) }

func openRedis(t *testing.T, url string, o Options) *Limiter {
	t.Helper()
	l, err := Open(url, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// fakeService answers every diagnostic with an empty summary.
type fakeService struct{}

func (fakeService) Scan(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
	return mailauth.ScanSummary{}, nil
}

func (fakeService) CheckIP(context.Context, netip.Addr) (mailauth.PTRCheckSummary, error) {
	return mailauth.PTRCheckSummary{}, nil
}

// testServer is httpapi's handler over fakeService on a loopback
// listener, trusting X-Forwarded-For from loopback.
type testServer struct {
	*httptest.Server
	log *syncbuf.Buffer
}

func newTestServer(t *testing.T, o httpapi.Options) *testServer {
	t.Helper()
	ts := &testServer{log: &syncbuf.Buffer{}}
	o.Logger = slog.New(slog.NewJSONHandler(ts.log, nil))
	o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	ts.Server = httptest.NewServer(httpapi.New(fakeService{}, o))
	t.Cleanup(ts.Close)
	return ts
}

// response is a finished response with its body read.
type response struct {
	*http.Response
	body []byte
}

// post sends body to path as JSON, from client (X-Forwarded-For) unless
// client is empty.
func (ts *testServer) post(t *testing.T, path, body, client string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if client != "" {
		req.Header.Set("X-Forwarded-For", client)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{resp, b}
}

// errorMessage is the text of an error body {"error": "..."}.
func errorMessage(t *testing.T, r response) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.body, &e), "status %d: body %q", r.StatusCode, r.body)
	return e.Error
}

func scanBody(domain string) string { return `{"domain":` + strconv.Quote(domain) + `}` }

func ptrBody(ip string) string { return `{"sendingIp":` + strconv.Quote(ip) + `}` }

// TestLimiterSharedByInstances: two handler instances, each with its
// own Redis client, share one counter per source address.
func TestLimiterSharedByInstances(t *testing.T) {
	url := startRedis(t)
	secret := []byte("a shared secret of the instances")
	a := newTestServer(t, httpapi.Options{Limiter: openRedis(t, url, Options{Secret: secret})})
	b := newTestServer(t, httpapi.Options{Limiter: openRedis(t, url, Options{Secret: secret})})
	for i := range 30 {
		ts, path, body := a, "/api/scan", scanBody("example.com")
		if i%2 == 1 {
			ts, path, body = b, "/api/ptr-check", ptrBody("8.8.8.8")
		}
		r := ts.post(t, path, body, "")
		require.Equal(t, 200, r.StatusCode, "request %d: remaining %q", i+1, r.Header.Get("X-RateLimit-Remaining"))
		require.Equal(t, strconv.Itoa(29-i), r.Header.Get("X-RateLimit-Remaining"), "request %d: %d remaining", i+1, r.StatusCode)
	}
	for _, ts := range []*testServer{a, b} {
		r := ts.post(t, "/api/scan", scanBody("example.com"), "")
		ra, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		assert.Equal(t, http.StatusTooManyRequests, r.StatusCode, "31st request: Retry-After %q", r.Header.Get("Retry-After"))
		assert.GreaterOrEqual(t, ra, 1, "31st request: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
		assert.LessOrEqual(t, ra, 60, "31st request: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	// No raw address is stored as a key.
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	require.NoError(t, err, "keys")
	require.Len(t, keys, 1, "keys %q", keys)
	require.NotContains(t, keys[0], "127.0.0.1", "keys %q", keys)
	require.True(t, strings.HasPrefix(keys[0], DefaultPrefix), "keys %q", keys)
	plain := sha256.Sum256([]byte("127.0.0.1"))
	want := DefaultPrefix + hex.EncodeToString(keyed.Sum(secret, keyed.PurposeRateLimit, "127.0.0.1")[:16])
	assert.Equal(t, want, keys[0], "key is not the keyed HMAC of the address")
	assert.NotContains(t, keys[0], hex.EncodeToString(plain[:16]), "key %q is not the keyed HMAC of the address (%q)", keys[0], want)
	ttl, _ := c.PTTL(context.Background(), keys[0]).Result()
	assert.Greater(t, ttl, time.Duration(0), "key TTL")
	assert.LessOrEqual(t, ttl, httpapi.DefaultRateWindow, "key TTL")
}

// TestLimiterSecretsSeparate: limiters with different secrets (or
// none: a random one each) count the same source under different keys.
func TestLimiterSecretsSeparate(t *testing.T) {
	url := startRedis(t)
	ctx := context.Background()
	for _, o := range []Options{{Limit: 1, Secret: []byte("secret one")}, {Limit: 1, Secret: []byte("secret two")}, {Limit: 1}, {Limit: 1}} {
		d, err := openRedis(t, url, o).Allow(ctx, "203.0.113.5")
		assert.NoError(t, err, "secret %q", o.Secret)
		assert.True(t, d.Allowed, "secret %q: %+v (counted under another limiter's key)", o.Secret, d)
	}
}

// TestLimiterWindowExpires: the window opens with the first request
// and the count starts over when Redis expires it.
func TestLimiterWindowExpires(t *testing.T) {
	url := startRedis(t)
	const window = 1500 * time.Millisecond
	l := openRedis(t, url, Options{Limit: 2, Window: window, Prefix: "t:"})
	ctx := context.Background()
	// The four requests must fall in one window: a run that took longer
	// (a loaded machine) does not count, and is made again with another
	// key. Time only says whether a run counts, never its verdict.
	var key string
	for run := 0; ; run++ {
		require.Less(t, run, 20, "no run of four requests within %v", window)
		key = fmt.Sprintf("203.0.113.%d", 5+run)
		start := time.Now() // before the window opens
		var got []httpapi.Decision
		for range 4 {
			d, err := l.Allow(ctx, key)
			require.NoError(t, err, "request %d", len(got)+1)
			got = append(got, d)
		}
		if time.Since(start) >= window {
			continue
		}
		for i, want := range []bool{true, true, false, false} {
			d := got[i]
			require.Equal(t, want, d.Allowed, "request %d: %+v", i+1, d)
			require.Greater(t, d.Reset, time.Duration(0), "request %d: %+v", i+1, d)
			require.LessOrEqual(t, d.Reset, window, "request %d: %+v", i+1, d)
		}
		break
	}
	time.Sleep(window + 100*time.Millisecond) // at least: longer only makes the expiry surer
	d, err := l.Allow(ctx, key)
	assert.NoError(t, err, "after expiry")
	assert.True(t, d.Allowed, "after expiry: %+v", d)
	assert.Equal(t, 1, d.Remaining, "after expiry: %+v", d)
}

// TestLimiterDown: an unreachable Redis makes the diagnostic
// endpoints answer 500, promptly.
func TestLimiterDown(t *testing.T) {
	t.Parallel()
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", freeLoopbackPort(t)) // nothing listens there
	ts := newTestServer(t, httpapi.Options{Limiter: openRedis(t, url, Options{})})
	t0 := time.Now()
	r := ts.post(t, "/api/scan", scanBody("example.com"), "")
	if assert.Equal(t, 500, r.StatusCode, "body %s", r.body) {
		assert.Equal(t, msgLimiterDown, errorMessage(t, r), "status %d body %s", r.StatusCode, r.body)
	}
	assert.LessOrEqual(t, time.Since(t0), 5*time.Second, "took too long")
	assert.NotContains(t, ts.log.String(), "127.0.0.1", "log names an address")
}

// TestOpenBoundsRetries: Open's client dials once per try and retries a
// call once, so a refused Redis is found after two dials, and two dial
// timeouts fit in one call's timeout.
func TestOpenBoundsRetries(t *testing.T) {
	t.Parallel()
	l, err := Open("redis://127.0.0.1:1/0", Options{})
	require.NoError(t, err)
	defer l.Close()
	c, ok := l.client.(*redis.Client)
	require.True(t, ok)
	o := c.Options()
	assert.Equal(t, 1, o.DialerRetries, "dials per try")
	assert.Equal(t, 1, o.MaxRetries, "retries per call")
	assert.LessOrEqual(t, time.Duration(o.MaxRetries+1)*o.DialTimeout, redisCallTimeout,
		"the dials of one call fit in its timeout")
}

// TestOpenBadURL rejects a malformed URL.
func TestOpenBadURL(t *testing.T) {
	t.Parallel()
	_, err := Open("http://x", Options{})
	assert.Error(t, err, "http URL accepted")
}

// TestOpenHidesURL: a URL the parser rejects is not repeated in the
// error, since it may carry a password.
func TestOpenHidesURL(t *testing.T) {
	_, err := Open("redis://user:hunter2@[bad", Options{})
	require.ErrorIs(t, err, ErrInvalidURL)
	require.NotContains(t, err.Error(), "hunter2", "err = %v", err)
}

// TestNetworkRateLimit: the aggregate limits of a Redis limiter live in
// Redis too (httpapi.New's default), so instances share them.
func TestNetworkRateLimit(t *testing.T) {
	url := startRedis(t)
	lim := openRedis(t, url, Options{Limit: 2})
	a := newTestServer(t, httpapi.Options{Limiter: lim})
	// Four /64s of one /56 send the per-source 2 each: the /56's 4 × 2.
	for i := range 4 {
		for range 2 {
			r := a.post(t, "/api/scan", scanBody("example.com"), fmt.Sprintf("2001:db8:0:1%02x::1", i))
			require.Equal(t, 200, r.StatusCode, "/64 %d", i)
		}
	}
	r := a.post(t, "/api/scan", scanBody("example.com"), "2001:db8:0:1ff::1")
	require.Equal(t, 429, r.StatusCode, "5th /64 of the /56: %s", r.body)
	assert.Equal(t, msgNetworkLimited, errorMessage(t, r))
	assert.NotEmpty(t, r.Header.Get("Retry-After"))
	assert.Equal(t, "1", r.Header.Get("X-RateLimit-Remaining"), "the per-source value")
	assert.Equal(t, 200, a.post(t, "/api/scan", scanBody("example.com"), "2001:db8:0:200::1").StatusCode, "another /56")
	assert.Equal(t, 200, a.post(t, "/api/scan", scanBody("example.com"), "203.0.113.9").StatusCode, "IPv4 client")

	b := newTestServer(t, httpapi.Options{Limiter: lim})
	r = b.post(t, "/api/scan", scanBody("example.com"), "2001:db8:0:1fe::1")
	assert.Equal(t, 429, r.StatusCode, "second instance, same /56: %s", r.body)
	assert.Equal(t, msgNetworkLimited, errorMessage(t, r), "second instance, same /56")
}

// TestFallbackServes: end to end, a handler whose Redis store is
// unreachable answers 200, not 500, through an httpapi.FallbackLimiter,
// and its network limits fall back too.
func TestFallbackServes(t *testing.T) {
	t.Parallel()
	rl, err := Open("redis://127.0.0.1:1/0", Options{Secret: []byte("0123456789abcdef")})
	require.NoError(t, err)
	defer rl.Close()
	f := httpapi.NewFallbackLimiter(rl, httpapi.FallbackOptions{Limit: 5})
	defer f.Close()
	ts := newTestServer(t, httpapi.Options{Limiter: f, NetworkLimits: f.NetworkLimits(5)})
	for _, client := range []string{"192.0.2.1", "2001:db8::1"} { // IPv6 meets the network limits
		assert.Equal(t, 200, ts.post(t, "/api/scan", `{"domain":"example.com"}`, client).StatusCode, "%s", client)
	}
	assert.True(t, f.Degraded())
}
