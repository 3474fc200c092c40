package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryLimiterWindow: a fixed window opened by the first request,
// Remaining limit-1..0, denial after the limit, Reset = time to the end.
func TestMemoryLimiterWindow(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	l := NewMemoryLimiter(MemoryLimiterOptions{Limit: 3, Window: 10 * time.Second, Now: clock.Now})
	ctx := context.Background()
	want := []Decision{
		{true, 2, 10 * time.Second},
		{true, 1, 9 * time.Second},
		{true, 0, 8 * time.Second},
		{false, 0, 7 * time.Second},
		{false, 0, 6 * time.Second},
	}
	for i, w := range want {
		d, err := l.Allow(ctx, "198.51.100.1")
		assert.NoError(t, err, "request %d", i+1)
		assert.Equal(t, w, d, "request %d", i+1)
		clock.Advance(time.Second)
	}
	d, _ := l.Allow(ctx, "198.51.100.2")
	assert.True(t, d.Allowed, "another key shares the count: %+v", d)
	assert.Equal(t, 2, d.Remaining, "another key shares the count: %+v", d)
	clock.Advance(5 * time.Second) // 10 s after the first request
	d, _ = l.Allow(ctx, "198.51.100.1")
	assert.Equal(t, Decision{true, 2, 10 * time.Second}, d, "new window")
}

// TestMemoryLimiterManyAddresses: 100k distinct addresses are tracked,
// and expired windows are evicted, so memory returns to near zero.
func TestMemoryLimiterManyAddresses(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	l := NewMemoryLimiter(MemoryLimiterOptions{Now: clock.Now})
	ctx := context.Background()
	const n = 100_000
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		d, err := l.Allow(ctx, a.String())
		require.NoError(t, err, "address %d", i)
		require.True(t, d.Allowed, "address %d: %+v", i, d)
		require.Equal(t, DefaultRateLimit-1, d.Remaining, "address %d: %+v", i, d)
	}
	require.Equal(t, n, l.Len(), "addresses tracked")
	clock.Advance(DefaultRateWindow)
	_, err := l.Allow(ctx, "2001:db8::1")
	require.NoError(t, err)
	assert.Equal(t, 1, l.Len(), "after the window: addresses tracked, want 1 (expired ones evicted)")
}

// TestMemoryLimiterFull: with MaxKeys open windows a new address is
// still counted (never refused): the window that opened first is evicted
// to make room, known addresses keep counting, and the table never grows
// past MaxKeys (at a reduced capacity).
func TestMemoryLimiterFull(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	l := NewMemoryLimiter(MemoryLimiterOptions{MaxKeys: 10, Window: time.Minute, Now: clock.Now})
	ctx := context.Background()
	for i := range 10 {
		_, err := l.Allow(ctx, fmt.Sprint("k", i))
		require.NoError(t, err)
		clock.Advance(time.Second)
	}
	d, err := l.Allow(ctx, "new")
	assert.NoError(t, err, "11th address")
	assert.True(t, d.Allowed, "11th address: %+v, want allowed with a fresh window", d)
	assert.Equal(t, DefaultRateLimit-1, d.Remaining, "11th address: %+v, want allowed with a fresh window", d)
	assert.Equal(t, 10, l.Len(), "len")
	assert.Equal(t, 1, l.Evicted(), "evicted")
	d, err = l.Allow(ctx, "k3")
	assert.NoError(t, err, "known address while full")
	assert.Equal(t, DefaultRateLimit-2, d.Remaining, "known address while full: %+v", d)
	d, _ = l.Allow(ctx, "k0")
	assert.Equal(t, DefaultRateLimit-1, d.Remaining, "k0 (oldest) should have been evicted and start a new window: %+v", d)
	for i := range 1000 { // a flood of fresh addresses: each is served
		d, err := l.Allow(ctx, fmt.Sprint("flood", i))
		require.NoError(t, err, "flood address %d", i)
		require.True(t, d.Allowed, "flood address %d: %+v", i, d)
	}
	assert.Equal(t, 10, l.Len(), "len after the flood")
}

// TestLimiterFullServesNewClients: a server whose limiter table is full
// answers a new client 200, not 500 (end to end, through the handler).
func TestLimiterFullServesNewClients(t *testing.T) {
	t.Parallel()
	clock := NewTestClock()
	lim := NewMemoryLimiter(MemoryLimiterOptions{MaxKeys: 4, Now: clock.Now})
	ts := NewTestServer(t, &FakeService{}, Options{Limiter: lim, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for i := range 20 {
		req := ts.Request(t, "POST", "/api/scan", "application/json", strings.NewReader(`{"domain":"example.com"}`))
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1))
		r := ts.Do(t, req)
		require.Equal(t, 200, r.StatusCode, "client %d: %q", i+1, r.Header.Get("X-RateLimit-Remaining"))
		require.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "client %d: %d", i+1, r.StatusCode)
	}
}

// TestMemoryLimiterConcurrent: concurrent requests of one address are
// counted exactly.
func TestMemoryLimiterConcurrent(t *testing.T) {
	t.Parallel()
	l := NewMemoryLimiter(MemoryLimiterOptions{Limit: 50})
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 4 * runtime.GOMAXPROCS(0) * 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, _ := l.Allow(context.Background(), "k")
			if d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, min(50, 4*runtime.GOMAXPROCS(0)*10), allowed, "allowed")
}

// TestRetryAfterSeconds rounds up, at least 1.
func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]int{
		time.Millisecond: 1, 999 * time.Millisecond: 1, time.Second: 1,
		1001 * time.Millisecond: 2, 60 * time.Second: 60, 0: 1, -time.Second: 1,
	} {
		assert.Equal(t, want, retryAfterSeconds(d), "%v", d)
	}
}

// TestSourceAddr: the TCP peer, unless it is a trusted proxy; then the
// rightmost untrusted X-Forwarded-For hop. IPv6 clients are keyed by their
// /64, IPv4 (and IPv4-mapped) clients by their address.
func TestSourceAddr(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:1::/48")}
	cases := []struct {
		name, peer string
		xff        []string
		proxies    []netip.Prefix
		want       string
	}{
		{"peer v4", "198.51.100.7:5555", nil, trusted, "198.51.100.7"},
		{"peer v6", "[2001:db8:2::5]:5555", nil, trusted, "2001:db8:2::/64"},
		{"peer v6 other interface id", "[2001:db8:2:0:aaaa:bbbb:cccc:dddd]:1", nil, trusted, "2001:db8:2::/64"},
		{"peer v6 other /64", "[2001:db8:2:1::5]:5555", nil, trusted, "2001:db8:2:1::/64"},
		{"peer v6 zone", "[fe80::1%eth0]:1", nil, trusted, "fe80::/64"},
		{"peer mapped", "[::ffff:198.51.100.7]:1", nil, trusted, "198.51.100.7"},
		{"xff ignored from untrusted peer", "198.51.100.7:1", []string{"203.0.113.9"}, trusted, "198.51.100.7"},
		{"xff ignored without proxies", "10.0.0.1:1", []string{"203.0.113.9"}, nil, "10.0.0.1"},
		{"one hop", "10.0.0.1:1", []string{"203.0.113.9"}, trusted, "203.0.113.9"},
		{"spoofed left part", "10.0.0.1:1", []string{"1.2.3.4, 203.0.113.9"}, trusted, "203.0.113.9"},
		{"proxy chain", "10.0.0.1:1", []string{"203.0.113.9, 10.1.1.1", "2001:db8:1::7"}, trusted, "203.0.113.9"},
		{"all trusted", "10.0.0.1:1", []string{"10.2.2.2, 10.3.3.3"}, trusted, "10.2.2.2"},
		{"no header", "10.0.0.1:1", nil, trusted, "10.0.0.1"},
		{"garbage hop", "10.0.0.1:1", []string{"203.0.113.9, garbage"}, trusted, "10.0.0.1"},
		{"garbage behind client", "10.0.0.1:1", []string{"garbage, 203.0.113.9"}, trusted, "203.0.113.9"},
		{"hop with port", "10.0.0.1:1", []string{"[2001:db8:9::1]:443"}, trusted, "2001:db8:9::/64"},
		{"hop mapped", "10.0.0.1:1", []string{"::ffff:203.0.113.9"}, trusted, "203.0.113.9"},
		{"hop v4 with port", "10.0.0.1:1", []string{" 203.0.113.9:80 "}, trusted, "203.0.113.9"},
		{"unparsable peer", "pipe", nil, trusted, unknownSource},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/api/scan", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			assert.Equal(t, tc.want, sourceAddr(r, tc.proxies))
		})
	}
}

// TestLimitKey: IPv4 by address, IPv6 by /64, mapped IPv6 as IPv4.
func TestLimitKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.1":                     "192.0.2.1",
		"::ffff:192.0.2.1":              "192.0.2.1",
		"2001:db8:1:2:3:4:5:6":          "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ffff:1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":               "2001:db8:1:3::/64",
		"::1":                           "::/64",
	} {
		assert.Equal(t, want, limitKey(netip.MustParseAddr(in)), "%s", in)
	}
	assert.Equal(t, unknownSource, limitKey(netip.Addr{}), "zero Addr")
}
