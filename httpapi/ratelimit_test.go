package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
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
		if err != nil || d != w {
			t.Errorf("request %d: %+v %v, want %+v", i+1, d, err, w)
		}
		clock.Advance(time.Second)
	}
	if d, _ := l.Allow(ctx, "198.51.100.2"); !d.Allowed || d.Remaining != 2 {
		t.Errorf("another key shares the count: %+v", d)
	}
	clock.Advance(5 * time.Second) // 10 s after the first request
	if d, _ := l.Allow(ctx, "198.51.100.1"); d != (Decision{true, 2, 10 * time.Second}) {
		t.Errorf("new window: %+v", d)
	}
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
		if d, err := l.Allow(ctx, a.String()); err != nil || !d.Allowed || d.Remaining != DefaultRateLimit-1 {
			t.Fatalf("address %d: %+v %v", i, d, err)
		}
	}
	if l.Len() != n {
		t.Fatalf("tracking %d addresses, want %d", l.Len(), n)
	}
	clock.Advance(DefaultRateWindow)
	if _, err := l.Allow(ctx, "2001:db8::1"); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 1 {
		t.Errorf("after the window: %d addresses tracked, want 1 (expired ones evicted)", l.Len())
	}
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
		if _, err := l.Allow(ctx, fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	if d, err := l.Allow(ctx, "new"); err != nil || !d.Allowed || d.Remaining != DefaultRateLimit-1 {
		t.Errorf("11th address: %+v %v, want allowed with a fresh window", d, err)
	}
	if l.Len() != 10 || l.Evicted() != 1 {
		t.Errorf("len %d evicted %d, want 10 and 1", l.Len(), l.Evicted())
	}
	if d, err := l.Allow(ctx, "k3"); err != nil || d.Remaining != DefaultRateLimit-2 {
		t.Errorf("known address while full: %+v %v", d, err)
	}
	if d, _ := l.Allow(ctx, "k0"); d.Remaining != DefaultRateLimit-1 {
		t.Errorf("k0 (oldest) should have been evicted and start a new window: %+v", d)
	}
	for i := range 1000 { // a flood of fresh addresses: each is served
		if d, err := l.Allow(ctx, fmt.Sprint("flood", i)); err != nil || !d.Allowed {
			t.Fatalf("flood address %d: %+v %v", i, d, err)
		}
	}
	if l.Len() != 10 {
		t.Errorf("len %d after the flood, want 10", l.Len())
	}
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
		if r := ts.Do(t, req); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != "29" {
			t.Fatalf("client %d: %d %q", i+1, r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
		}
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
	if want := min(50, 4*runtime.GOMAXPROCS(0)*10); allowed != want {
		t.Errorf("allowed %d, want %d", allowed, want)
	}
}

// TestRetryAfterSeconds rounds up, at least 1.
func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]int{
		time.Millisecond: 1, 999 * time.Millisecond: 1, time.Second: 1,
		1001 * time.Millisecond: 2, 60 * time.Second: 60, 0: 1, -time.Second: 1,
	} {
		if got := retryAfterSeconds(d); got != want {
			t.Errorf("%v: %d, want %d", d, got, want)
		}
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
			if got := sourceAddr(r, tc.proxies); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
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
		if got := limitKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
	if got := limitKey(netip.Addr{}); got != unknownSource {
		t.Errorf("zero Addr: %q", got)
	}
}

// TestOpenRedisLimiterHidesURL: a URL the parser rejects is not repeated
// in the error, since it may carry a password.
func TestOpenRedisLimiterHidesURL(t *testing.T) {
	_, err := OpenRedisLimiter("redis://user:hunter2@[bad", RedisLimiterOptions{})
	if !errors.Is(err, ErrInvalidRedisURL) || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}
