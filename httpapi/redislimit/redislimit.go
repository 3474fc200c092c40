// Package redislimit counts the rate limits of package httpapi in Redis, so
// that several instances of the service share one limit per source (an
// IPv4 address or an IPv6 /64) and per IPv6 network.
//
// [Limiter] is an [httpapi.SharedLimiter]: pass it as
// httpapi.Options.Limiter (a Redis that does not answer then makes the
// diagnostic endpoints answer 500), or wrap it in an
// [httpapi.FallbackLimiter] to count in memory while Redis is down.
//
// It lives apart from httpapi so that a program mounting the handler
// without Redis does not link a Redis client.
//
// # What this package does not do
//
// It stores no address: a key is a prefix and a keyed HMAC-SHA-256 of the
// source. It does not start, configure or monitor the Redis server, and
// it does not log.
package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/keyed"
)

// Redis client defaults applied by Open when the URL leaves
// them unset: a limiter that cannot answer quickly answers 500 quickly
// (or, behind an httpapi.FallbackLimiter, switches to memory quickly).
// One call makes at most redisMaxRetries+1 tries of redisDialerRetries
// dials each, so a server that refuses connections is found after two
// refused dials and one short backoff, not the client library's default
// of five dials with 100 ms pauses per try (about a second per call on
// an idle machine, several on a loaded one, where redisCallTimeout could
// end first); and a server that does not answer at all costs at most
// (redisMaxRetries+1) × redisDialTimeout, within redisCallTimeout.
const (
	redisDialTimeout   = time.Second
	redisIOTimeout     = 500 * time.Millisecond
	redisCallTimeout   = 2 * time.Second
	redisMaxRetries    = 1
	redisDialerRetries = 1
)

// DefaultPrefix is the prefix of the limiter's Redis keys.
const DefaultPrefix = "mailauth:rl:"

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

// Options configures a Limiter; zero fields take the defaults.
type Options struct {
	// Limit is the number of requests allowed per window; 0 means
	// httpapi.DefaultRateLimit.
	Limit int
	// Window is the window length (millisecond resolution); 0 means
	// httpapi.DefaultRateWindow.
	Window time.Duration
	// Prefix is prepended to every key; "" means DefaultPrefix.
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

// Limiter is an httpapi.Limiter whose counters live in Redis, so that several
// instances of the service share one limit per source (IPv4 address or
// IPv6 /64). Keys are the prefix and an HMAC-SHA-256 of the source keyed
// with a secret (no raw address is stored, and without the secret a key
// cannot be traced back to an address by trying them all); they expire
// with their window.
type Limiter struct {
	client redis.Scripter
	closer func() error
	limit  int
	window time.Duration
	prefix string
	secret []byte
}

// New returns a limiter over an existing client (a *redis.Client,
// *redis.ClusterClient or *redis.Ring). Close does not close the client.
func New(client redis.Scripter, o Options) *Limiter {
	l := &Limiter{client: client, limit: o.Limit, window: o.Window, prefix: o.Prefix, secret: slices.Clone(o.Secret)}
	if len(l.secret) == 0 {
		l.secret = make([]byte, redisKeySecretBytes)
		_, _ = rand.Read(l.secret) // crypto/rand.Read never fails (Go 1.24+)
	}
	if l.limit <= 0 {
		l.limit = httpapi.DefaultRateLimit
	}
	if l.window <= 0 {
		l.window = httpapi.DefaultRateWindow
	}
	if l.window < time.Millisecond {
		l.window = time.Millisecond
	}
	if l.prefix == "" {
		l.prefix = DefaultPrefix
	}
	return l
}

// ErrInvalidURL is Open's error for a URL it cannot parse; it never
// repeats the URL.
var ErrInvalidURL = errors.New("redislimit: invalid redis URL")

// Open connects to the Redis server of rawURL
// (redis://[user:password@]host:port[/db] or rediss://…) and returns a
// limiter that owns the client. It does not contact the server: an
// unreachable server shows as errors from Allow (and 500 responses).
func Open(rawURL string, o Options) (*Limiter, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// The parser's error quotes the URL, which may hold a password.
		return nil, ErrInvalidURL
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
		opt.MaxRetries = redisMaxRetries
	}
	if opt.DialerRetries == 0 {
		opt.DialerRetries = redisDialerRetries
	}
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	l := New(c, o)
	l.closer = c.Close
	return l, nil
}

// Allow implements httpapi.Limiter with one atomic script call.
func (l *Limiter) Allow(ctx context.Context, key string) (httpapi.Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, redisCallTimeout)
	defer cancel()
	res, err := fixedWindowScript.Run(ctx, l.client, []string{l.redisKey(key)}, l.window.Milliseconds()).Int64Slice()
	if err != nil {
		return httpapi.Decision{}, fmt.Errorf("redislimit: %w", err)
	}
	if len(res) != 2 {
		return httpapi.Decision{}, errors.New("redislimit: unexpected script reply")
	}
	return httpapi.Decide(int(min(res[0], int64(l.limit)+1)), l.limit, time.Duration(res[1])*time.Millisecond), nil
}

// Ping checks that the server answers.
func (l *Limiter) Ping(ctx context.Context) error {
	c, ok := l.client.(interface {
		Ping(context.Context) *redis.StatusCmd
	})
	if !ok {
		return nil
	}
	return c.Ping(ctx).Err()
}

// NetworkLimits returns the default aggregate limits
// (httpapi.NewNetworkLimits) counted in the same Redis server as l
// (shared by every instance), under their own key prefixes. Each is a
// copy of l, so it keys its counters exactly as l does (same client,
// window and key derivation); only the limit and the prefix differ, and
// closing it does not close the client.
func (l *Limiter) NetworkLimits() []httpapi.NetworkLimit {
	return httpapi.NewNetworkLimits(l.limit, func(bits, limit int) httpapi.Limiter {
		c := *l
		c.closer = nil
		c.limit = limit
		c.prefix = l.prefix + "net" + strconv.Itoa(bits) + ":"
		return &c
	})
}

// Close closes the client when the limiter owns it.
func (l *Limiter) Close() error {
	if l.closer == nil {
		return nil
	}
	return l.closer()
}

// redisKey is the prefix and the hex of the first 128 bits of the keyed
// HMAC of the source key.
func (l *Limiter) redisKey(key string) string {
	return l.prefix + hex.EncodeToString(keyed.Sum(l.secret, keyed.PurposeRateLimit, key)[:16])
}

// Limiter is the shared limiter the handler and its fallback take.
var _ httpapi.SharedLimiter = (*Limiter)(nil)
