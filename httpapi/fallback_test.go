package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/syncbuf"
)

// switchLimiter fails while down is set; it counts its calls.
type switchLimiter struct {
	down  atomic.Bool
	calls atomic.Int64
	mem   *MemoryLimiter
}

var errStoreDown = errors.New("store down (test)")

func (s *switchLimiter) Allow(ctx context.Context, key string) (Decision, error) {
	s.calls.Add(1)
	if s.down.Load() {
		return Decision{}, errStoreDown
	}
	return s.mem.Allow(ctx, key)
}

// Ping implements SharedLimiter.
func (s *switchLimiter) Ping(context.Context) error {
	if s.down.Load() {
		return errStoreDown
	}
	return nil
}

// NetworkLimits implements SharedLimiter: limits that fail while s does.
func (s *switchLimiter) NetworkLimits() []NetworkLimit {
	return NewNetworkLimits(s.mem.limit, func(_, limit int) Limiter {
		return &switchNetwork{s, NewMemoryLimiter(MemoryLimiterOptions{Limit: limit})}
	})
}

// switchNetwork is a network limit of a switchLimiter.
type switchNetwork struct {
	store *switchLimiter
	mem   *MemoryLimiter
}

func (n *switchNetwork) Allow(ctx context.Context, key string) (Decision, error) {
	if n.store.down.Load() {
		return Decision{}, errStoreDown
	}
	return n.mem.Allow(ctx, key)
}

// TestFallbackLimiter: while the store fails, decisions are made in
// memory (no error, no call to the store), the outage is logged once and
// counted; the probe switches back once the store answers.
func TestFallbackLimiter(t *testing.T) {
	t.Parallel()
	store := &switchLimiter{mem: NewMemoryLimiter(MemoryLimiterOptions{Limit: 100})}
	var log syncbuf.Buffer
	f := &FallbackLimiter{primary: store, fallback: NewMemoryLimiter(MemoryLimiterOptions{Limit: 2}),
		st: &fallbackState{probe: store.Ping, interval: 5 * time.Millisecond, logger: slog.New(slog.NewJSONHandler(&log, nil)), stop: make(chan struct{})}}
	defer f.Close()

	d, err := f.Allow(t.Context(), "192.0.2.1")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.False(t, f.Degraded())

	store.down.Store(true)
	for i := range 3 {
		d, err := f.Allow(t.Context(), "192.0.2.1")
		require.NoError(t, err, "the fallback answers")
		assert.Equal(t, i < 2, d.Allowed, "the fallback's own limit")
	}
	assert.True(t, f.Degraded())
	assert.Equal(t, int64(3), f.FallbackDecisions())
	assert.Equal(t, int64(2), store.calls.Load(), "a store known down is not asked")
	assert.Equal(t, int64(1), f.Outages())
	assert.Equal(t, 1, strings.Count(log.String(), "rate-limit store unreachable"))

	store.down.Store(false)
	require.Eventually(t, func() bool { return !f.Degraded() }, 10*time.Second, 5*time.Millisecond)
	d, err = f.Allow(t.Context(), "192.0.2.1")
	require.NoError(t, err)
	assert.True(t, d.Allowed, "counted in the store again")
	// The probe logs the recovery just after it clears the outage.
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "rate-limit store answers again") },
		10*time.Second, 5*time.Millisecond, "the recovery is logged: %s", log.String())
}

// ctxLimiter fails with its context's error once the context ends, as a
// Redis call does; it counts its calls.
type ctxLimiter struct{ calls atomic.Int64 }

func (c *ctxLimiter) Allow(ctx context.Context, _ string) (Decision, error) {
	c.calls.Add(1)
	<-ctx.Done()
	return Decision{}, fmt.Errorf("redis: %w", ctx.Err())
}

// TestFallbackLimiterClientHangUp: a store call that fails because the
// request's context ended (the client hung up) returns that error and
// leaves the store up: no switch to memory, no log record, no outage.
func TestFallbackLimiterClientHangUp(t *testing.T) {
	t.Parallel()
	store := &ctxLimiter{}
	var log syncbuf.Buffer
	f := &FallbackLimiter{primary: store, fallback: NewMemoryLimiter(MemoryLimiterOptions{Limit: 2}),
		st: &fallbackState{probe: func(context.Context) error { return nil }, interval: time.Millisecond,
			logger: slog.New(slog.NewJSONHandler(&log, nil)), stop: make(chan struct{})}}
	defer f.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := f.Allow(ctx, "192.0.2.1")
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, f.Degraded(), "a hang-up is not a store outage")
	assert.Equal(t, int64(0), f.Outages())
	assert.Equal(t, int64(0), f.FallbackDecisions())
	assert.Empty(t, log.String())

	ctx, cancel = context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	_, err = f.Allow(ctx, "192.0.2.1")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, f.Degraded(), "nor is the request's own deadline")
	assert.Equal(t, int64(2), store.calls.Load(), "the store is still asked")
}

// refusedLimiter is a store that refuses connections, found out only
// once the caller's context has ended: as when a client library retries
// and backs off against a dead port on a slow machine.
type refusedLimiter struct{ calls atomic.Int64 }

func (r *refusedLimiter) Allow(ctx context.Context, _ string) (Decision, error) {
	r.calls.Add(1)
	<-ctx.Done()
	return Decision{}, fmt.Errorf("redis: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
}

// TestFallbackLimiterRefusedAfterContextEnds: a store that refuses
// connections switches the instance to memory even when the caller's
// context has ended by the time the store's error comes back (canceled
// or past its deadline): the refusal is the store's fault, not the
// caller's. The decision is made in memory, logged once, and the store
// is not asked again.
func TestFallbackLimiterRefusedAfterContextEnds(t *testing.T) {
	t.Parallel()
	for name, end := range map[string]func(context.Context) (context.Context, context.CancelFunc){
		"canceled": func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx, cancel
		},
		"deadline": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithDeadline(ctx, time.Unix(0, 0))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := &refusedLimiter{}
			var log syncbuf.Buffer
			f := &FallbackLimiter{primary: store, fallback: NewMemoryLimiter(MemoryLimiterOptions{Limit: 2}),
				st: &fallbackState{probe: func(context.Context) error { return errStoreDown }, interval: time.Hour,
					logger: slog.New(slog.NewJSONHandler(&log, nil)), stop: make(chan struct{})}}
			defer f.Close()
			ctx, cancel := end(t.Context())
			defer cancel()
			d, err := f.Allow(ctx, "192.0.2.1")
			require.NoError(t, err, "a refused connection is decided in memory")
			assert.True(t, d.Allowed)
			assert.True(t, f.Degraded(), "a refused connection is a store outage whatever the context says")
			assert.Equal(t, int64(1), f.Outages())
			assert.Equal(t, int64(1), f.FallbackDecisions())
			assert.Equal(t, 1, strings.Count(log.String(), "rate-limit store unreachable"))

			d, err = f.Allow(t.Context(), "192.0.2.1")
			require.NoError(t, err)
			assert.True(t, d.Allowed)
			assert.Equal(t, int64(1), store.calls.Load(), "a store known down is not asked")
		})
	}
}

// TestFallbackLimiterServes: end to end, a handler whose shared store
// does not answer answers 200, not 500, and its network limits fall back
// too (package redislimit runs this with an unreachable Redis).
func TestFallbackLimiterServes(t *testing.T) {
	t.Parallel()
	store := &switchLimiter{mem: NewMemoryLimiter(MemoryLimiterOptions{Limit: 100})}
	store.down.Store(true)
	f := NewFallbackLimiter(store, FallbackOptions{Limit: 5})
	defer f.Close()
	srv := httptest.NewServer(New(&FakeService{}, Options{Limiter: f, NetworkLimits: f.NetworkLimits(5),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}))
	defer srv.Close()
	for _, client := range []string{"192.0.2.1", "2001:db8::1"} { // IPv6 meets the network limits
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/scan", strings.NewReader(`{"domain":"example.com"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 200, resp.StatusCode)
	}
	assert.True(t, f.Degraded())
}

// recordingObserver keeps what the handler reported.
type recordingObserver struct {
	mu       sync.Mutex
	requests []string
	limits   []string
	admitted []string
	checks   []CheckOutcome
}

func (o *recordingObserver) Request(route string, status int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests = append(o.requests, fmt.Sprintf("%s %d", route, status))
}

func (o *recordingObserver) RateLimit(d string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.limits = append(o.limits, d)
}

func (o *recordingObserver) Admission(outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.admitted = append(o.admitted, outcome)
}

func (o *recordingObserver) Diagnostic(_ string, _ time.Duration, c []CheckOutcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.checks = append(o.checks, c...)
}

// TestObserver: requests, decisions, admissions and checks reach the
// Observer; an unknown path is "other" (it could carry a domain).
func TestObserver(t *testing.T) {
	t.Parallel()
	obs := &recordingObserver{}
	srv := httptest.NewServer(New(&FakeService{}, Options{Observer: obs, Limiter: NewMemoryLimiter(MemoryLimiterOptions{Limit: 1})}))
	defer srv.Close()
	for range 2 {
		resp, err := http.Post(srv.URL+"/api/scan", "application/json", strings.NewReader(`{"domain":"example.com"}`))
		require.NoError(t, err)
		resp.Body.Close()
	}
	resp, err := http.Get(srv.URL + "/example.com")
	require.NoError(t, err)
	resp.Body.Close()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, []string{"/api/scan 200", "/api/scan 429", "other 404"}, obs.requests)
	assert.Equal(t, []string{"allowed", "limited"}, obs.limits)
	assert.Equal(t, []string{"admitted"}, obs.admitted)
	assert.Len(t, obs.checks, len(SampleScanSummary().Checks))
}

// TestRequestIDFromProxy: a trusted proxy's X-Request-Id is logged and
// echoed; from another peer, or malformed, it is replaced.
func TestRequestIDFromProxy(t *testing.T) {
	t.Parallel()
	const id = "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		sent    string
		kept    bool
	}{
		{"trusted", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, id, true},
		{"untrusted peer", []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, id, false},
		{"malformed", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "example.com-0123456789", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncbuf.Buffer
			srv := httptest.NewServer(New(&FakeService{}, Options{TrustedProxies: tc.proxies, RequestIDFromProxy: true,
				Logger: slog.New(slog.NewJSONHandler(&log, nil))}))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/health", nil)
			req.Header.Set("X-Request-Id", tc.sent)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			got := resp.Header.Get("X-Request-Id")
			assert.Equal(t, tc.kept, got == tc.sent, got)
			assert.Contains(t, log.String(), `"request_id":"`+got+`"`)
			assert.NotContains(t, log.String(), "example.com")
		})
	}
}

// FuzzRequestID: an accepted request id is 16 to 64 letters, digits or
// '-' (nothing that could carry a domain or an address), whatever the
// header held.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"0123456789abcdef0123456789abcdef", "example.com", "", "192.0.2.1", strings.Repeat("a", 65), "a-b-c-d-e-f-g-h-i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !validRequestID(v) {
			return
		}
		require.False(t, len(v) < 16 || len(v) > 64 || strings.ContainsAny(v, ".:/@ "), "accepted %q", v)
		for _, c := range v {
			require.True(t, c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z', "accepted %q", v)
		}
	})
}
