package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/keyed"
	"github.com/mailauth/mailauth/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// freeLoopbackPort returns a TCP port that was free on 127.0.0.1.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedis starts a throw-away redis-server (internal/redistest) and
// returns its URL.
func startRedis(t *testing.T) string { return redistest.Start(t) }

func openRedis(t *testing.T, url string, o RedisLimiterOptions) *RedisLimiter {
	t.Helper()
	l, err := OpenRedisLimiter(url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// TestRedisLimiterSharedByInstances: two handler instances, each with its
// own Redis client, share one counter per source address.
func TestRedisLimiterSharedByInstances(t *testing.T) {
	url := startRedis(t)
	secret := []byte("a shared secret of the instances")
	a := NewTestServer(t, &FakeService{}, Options{Limiter: openRedis(t, url, RedisLimiterOptions{Secret: secret})})
	b := NewTestServer(t, &FakeService{}, Options{Limiter: openRedis(t, url, RedisLimiterOptions{Secret: secret})})
	for i := range 30 {
		ts, path, body := a, "/api/scan", scanBody("example.com")
		if i%2 == 1 {
			ts, path, body = b, "/api/ptr-check", ptrBody("8.8.8.8")
		}
		r := ts.PostJSON(t, path, body)
		if r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(29-i) {
			t.Fatalf("request %d: %d remaining %q", i+1, r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	for _, ts := range []*TestServer{a, b} {
		r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
		ra, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		if r.StatusCode != http.StatusTooManyRequests || ra < 1 || ra > 60 {
			t.Errorf("31st request: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
		}
	}
	// No raw address is stored as a key.
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil || len(keys) != 1 || strings.Contains(keys[0], "127.0.0.1") || !strings.HasPrefix(keys[0], DefaultRedisPrefix) {
		t.Fatalf("keys %q %v", keys, err)
	}
	plain := sha256.Sum256([]byte("127.0.0.1"))
	if want := DefaultRedisPrefix + hex.EncodeToString(keyed.Sum(secret, keyed.PurposeRateLimit, "127.0.0.1")[:16]); keys[0] != want ||
		strings.Contains(keys[0], hex.EncodeToString(plain[:16])) {
		t.Errorf("key %q is not the keyed HMAC of the address (%q)", keys[0], want)
	}
	ttl, _ := c.PTTL(context.Background(), keys[0]).Result()
	if ttl <= 0 || ttl > DefaultRateWindow {
		t.Errorf("key TTL %v", ttl)
	}
}

// TestRedisLimiterSecretsSeparate: limiters with different secrets (or
// none: a random one each) count the same source under different keys.
func TestRedisLimiterSecretsSeparate(t *testing.T) {
	url := startRedis(t)
	ctx := context.Background()
	for _, o := range []RedisLimiterOptions{{Limit: 1, Secret: []byte("secret one")}, {Limit: 1, Secret: []byte("secret two")}, {Limit: 1}, {Limit: 1}} {
		d, err := openRedis(t, url, o).Allow(ctx, "203.0.113.5")
		if err != nil || !d.Allowed {
			t.Errorf("secret %q: %+v %v (counted under another limiter's key)", o.Secret, d, err)
		}
	}
}

// TestRedisLimiterWindowExpires: the window opens with the first request
// and the count starts over when Redis expires it.
func TestRedisLimiterWindowExpires(t *testing.T) {
	url := startRedis(t)
	l := openRedis(t, url, RedisLimiterOptions{Limit: 2, Window: 1500 * time.Millisecond, Prefix: "t:"})
	ctx := context.Background()
	for i, want := range []bool{true, true, false, false} {
		d, err := l.Allow(ctx, "203.0.113.5")
		if err != nil || d.Allowed != want || d.Reset <= 0 || d.Reset > 1500*time.Millisecond {
			t.Fatalf("request %d: %+v %v", i+1, d, err)
		}
	}
	time.Sleep(1600 * time.Millisecond)
	d, err := l.Allow(ctx, "203.0.113.5")
	if err != nil || !d.Allowed || d.Remaining != 1 {
		t.Errorf("after expiry: %+v %v", d, err)
	}
}

// TestRedisLimiterDown: an unreachable Redis makes the diagnostic
// endpoints answer 500, promptly.
func TestRedisLimiterDown(t *testing.T) {
	t.Parallel()
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", freeLoopbackPort(t)) // nothing listens there
	ts := NewTestServer(t, &FakeService{}, Options{Limiter: openRedis(t, url, RedisLimiterOptions{})})
	t0 := time.Now()
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	if r.StatusCode != 500 || ErrorMessage(t, r) != errLimiterDown.msg {
		t.Errorf("status %d body %s", r.StatusCode, r.Body)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if strings.Contains(ts.Log.String(), "127.0.0.1") {
		t.Errorf("log names an address: %s", ts.Log.String())
	}
}

// TestOpenRedisLimiterBadURL rejects a malformed URL.
func TestOpenRedisLimiterBadURL(t *testing.T) {
	t.Parallel()
	if _, err := OpenRedisLimiter("http://x", RedisLimiterOptions{}); err == nil {
		t.Error("http URL accepted")
	}
}
