package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mailauth/mailauth/internal/keyed"
	"github.com/redis/go-redis/v9"
)

// Redis client defaults applied by OpenRedisLimiter when the URL leaves
// them unset: a limiter that cannot answer quickly answers 500 quickly.
const (
	redisDialTimeout = time.Second
	redisIOTimeout   = 500 * time.Millisecond
	redisCallTimeout = 2 * time.Second
)

// DefaultRedisPrefix is the prefix of the limiter's Redis keys.
const DefaultRedisPrefix = "mailauth:rl:"

// fixedWindowScript counts one request and returns {count, ms until the
// window ends}. INCR and the expiry run atomically in one round trip, so
// the first request of a window opens it and every instance sharing the
// server shares the count. A key found without expiry (it cannot happen
// through this script) is given one rather than living forever.
var fixedWindowScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`)

// RedisLimiterOptions configures a RedisLimiter; zero fields take the
// defaults.
type RedisLimiterOptions struct {
	// Limit is the number of requests allowed per window; 0 means
	// DefaultRateLimit.
	Limit int
	// Window is the window length (millisecond resolution); 0 means
	// DefaultRateWindow.
	Window time.Duration
	// Prefix is prepended to every key; "" means DefaultRedisPrefix.
	Prefix string
	// Secret keys the HMAC-SHA-256 that turns a source into a Redis key.
	// Every instance sharing the server must use the same secret to share
	// the counters; empty means a random secret of this limiter alone. The
	// limiter keeps its own copy.
	Secret []byte
}

// redisKeySecretBytes is the size of the random secret of a limiter
// configured without one (256 bits, the size of an HMAC-SHA-256 output;
// RFC 2104 section 3 advises a key no shorter than that).
const redisKeySecretBytes = 32

// RedisLimiter is a Limiter whose counters live in Redis, so that several
// instances of the service share one limit per source (IPv4 address or
// IPv6 /64). Keys are the prefix and an HMAC-SHA-256 of the source keyed
// with a secret (no raw address is stored, and without the secret a key
// cannot be traced back to an address by trying them all); they expire
// with their window.
type RedisLimiter struct {
	client redis.Scripter
	closer func() error
	limit  int
	window time.Duration
	prefix string
	secret []byte
}

// NewRedisLimiter returns a limiter over an existing client (a
// *redis.Client, *redis.ClusterClient or *redis.Ring). Close does not close
// the client.
func NewRedisLimiter(client redis.Scripter, o RedisLimiterOptions) *RedisLimiter {
	l := &RedisLimiter{client: client, limit: o.Limit, window: o.Window, prefix: o.Prefix, secret: slices.Clone(o.Secret)}
	if len(l.secret) == 0 {
		l.secret = make([]byte, redisKeySecretBytes)
		_, _ = rand.Read(l.secret) // crypto/rand.Read never fails (Go 1.24+)
	}
	if l.limit <= 0 {
		l.limit = DefaultRateLimit
	}
	if l.window <= 0 {
		l.window = DefaultRateWindow
	}
	if l.window < time.Millisecond {
		l.window = time.Millisecond
	}
	if l.prefix == "" {
		l.prefix = DefaultRedisPrefix
	}
	return l
}

// ErrInvalidRedisURL is OpenRedisLimiter's error for a URL it cannot
// parse; it never repeats the URL.
var ErrInvalidRedisURL = errors.New("httpapi: invalid redis URL")

// OpenRedisLimiter connects to the Redis server of rawURL
// (redis://[user:password@]host:port[/db] or rediss://…) and returns a
// limiter that owns the client. It does not contact the server: an
// unreachable server shows as errors from Allow (and 500 responses).
func OpenRedisLimiter(rawURL string, o RedisLimiterOptions) (*RedisLimiter, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// The parser's error quotes the URL, which may hold a password.
		return nil, ErrInvalidRedisURL
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = redisDialTimeout
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = redisIOTimeout
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = redisIOTimeout
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1
	}
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	l := NewRedisLimiter(c, o)
	l.closer = c.Close
	return l, nil
}

// Allow implements Limiter with one atomic script call.
func (l *RedisLimiter) Allow(ctx context.Context, key string) (Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, redisCallTimeout)
	defer cancel()
	res, err := fixedWindowScript.Run(ctx, l.client, []string{l.redisKey(key)}, l.window.Milliseconds()).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("httpapi: redis limiter: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, errors.New("httpapi: redis limiter: unexpected script reply")
	}
	return decide(int(min(res[0], int64(l.limit)+1)), l.limit, time.Duration(res[1])*time.Millisecond), nil
}

// Ping checks that the server answers.
func (l *RedisLimiter) Ping(ctx context.Context) error {
	c, ok := l.client.(interface {
		Ping(context.Context) *redis.StatusCmd
	})
	if !ok {
		return nil
	}
	return c.Ping(ctx).Err()
}

// Close closes the client when the limiter owns it.
func (l *RedisLimiter) Close() error {
	if l.closer == nil {
		return nil
	}
	return l.closer()
}

// redisKey is the prefix and the hex of the first 128 bits of the keyed
// HMAC of the source key.
func (l *RedisLimiter) redisKey(key string) string {
	return l.prefix + hex.EncodeToString(keyed.Sum(l.secret, keyed.PurposeRateLimit, key)[:16])
}
