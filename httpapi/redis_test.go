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

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/keyed"
	"github.com/mailauth/mailauth/internal/redistest"
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

func openRedis(t *testing.T, url string, o RedisLimiterOptions) *RedisLimiter {
	t.Helper()
	l, err := OpenRedisLimiter(url, o)
	require.NoError(t, err)
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
		require.Equal(t, 200, r.StatusCode, "request %d: remaining %q", i+1, r.Header.Get("X-RateLimit-Remaining"))
		require.Equal(t, strconv.Itoa(29-i), r.Header.Get("X-RateLimit-Remaining"), "request %d: %d remaining", i+1, r.StatusCode)
	}
	for _, ts := range []*TestServer{a, b} {
		r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
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
	require.True(t, strings.HasPrefix(keys[0], DefaultRedisPrefix), "keys %q", keys)
	plain := sha256.Sum256([]byte("127.0.0.1"))
	want := DefaultRedisPrefix + hex.EncodeToString(keyed.Sum(secret, keyed.PurposeRateLimit, "127.0.0.1")[:16])
	assert.Equal(t, want, keys[0], "key is not the keyed HMAC of the address")
	assert.NotContains(t, keys[0], hex.EncodeToString(plain[:16]), "key %q is not the keyed HMAC of the address (%q)", keys[0], want)
	ttl, _ := c.PTTL(context.Background(), keys[0]).Result()
	assert.Greater(t, ttl, time.Duration(0), "key TTL")
	assert.LessOrEqual(t, ttl, DefaultRateWindow, "key TTL")
}

// TestRedisLimiterSecretsSeparate: limiters with different secrets (or
// none: a random one each) count the same source under different keys.
func TestRedisLimiterSecretsSeparate(t *testing.T) {
	url := startRedis(t)
	ctx := context.Background()
	for _, o := range []RedisLimiterOptions{{Limit: 1, Secret: []byte("secret one")}, {Limit: 1, Secret: []byte("secret two")}, {Limit: 1}, {Limit: 1}} {
		d, err := openRedis(t, url, o).Allow(ctx, "203.0.113.5")
		assert.NoError(t, err, "secret %q", o.Secret)
		assert.True(t, d.Allowed, "secret %q: %+v (counted under another limiter's key)", o.Secret, d)
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
		require.NoError(t, err, "request %d", i+1)
		require.Equal(t, want, d.Allowed, "request %d: %+v", i+1, d)
		require.Greater(t, d.Reset, time.Duration(0), "request %d: %+v", i+1, d)
		require.LessOrEqual(t, d.Reset, 1500*time.Millisecond, "request %d: %+v", i+1, d)
	}
	time.Sleep(1600 * time.Millisecond)
	d, err := l.Allow(ctx, "203.0.113.5")
	assert.NoError(t, err, "after expiry")
	assert.True(t, d.Allowed, "after expiry: %+v", d)
	assert.Equal(t, 1, d.Remaining, "after expiry: %+v", d)
}

// TestRedisLimiterDown: an unreachable Redis makes the diagnostic
// endpoints answer 500, promptly.
func TestRedisLimiterDown(t *testing.T) {
	t.Parallel()
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", freeLoopbackPort(t)) // nothing listens there
	ts := NewTestServer(t, &FakeService{}, Options{Limiter: openRedis(t, url, RedisLimiterOptions{})})
	t0 := time.Now()
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	if assert.Equal(t, 500, r.StatusCode, "body %s", r.Body) {
		assert.Equal(t, errLimiterDown.msg, ErrorMessage(t, r), "status %d body %s", r.StatusCode, r.Body)
	}
	assert.LessOrEqual(t, time.Since(t0), 5*time.Second, "took too long")
	assert.NotContains(t, ts.Log.String(), "127.0.0.1", "log names an address")
}

// TestOpenRedisLimiterBadURL rejects a malformed URL.
func TestOpenRedisLimiterBadURL(t *testing.T) {
	t.Parallel()
	_, err := OpenRedisLimiter("http://x", RedisLimiterOptions{})
	assert.Error(t, err, "http URL accepted")
}
