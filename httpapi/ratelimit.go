package httpapi

import (
	"context"
	"time"
)

// Rate-limit defaults (API contract, Limits table: at most 30 requests per
// 60-second window per source address).
const (
	// DefaultRateLimit is the number of diagnostic requests allowed per
	// source address and window.
	DefaultRateLimit = 30
	// DefaultRateWindow is the length of the fixed window, which opens with
	// an address's first request.
	DefaultRateWindow = 60 * time.Second
)

// Limiter counts diagnostic requests per source in fixed windows. The
// handler's key is an IPv4 address ("192.0.2.1") or the /64 of an IPv6
// address ("2001:db8:1:2::/64"). Implementations must be safe for
// concurrent use.
type Limiter interface {
	// Allow counts one request for key and says whether it may proceed.
	// An error means the limiter's store cannot be used; the request is
	// then answered 500, never let through uncounted.
	Allow(ctx context.Context, key string) (Decision, error)
}

// SharedLimiter is a Limiter whose counters live in a store that several
// instances of the service share (package redislimit's Limiter is one).
// The handler counts its default aggregate limits beside it, and a
// [FallbackLimiter] counts in memory while the store does not answer.
type SharedLimiter interface {
	Limiter
	// Ping reports whether the store answers.
	Ping(ctx context.Context) error
	// NetworkLimits returns the default aggregate limits (see
	// [NewNetworkLimits]) counted in the same store.
	NetworkLimits() []NetworkLimit
}

// Decision is a Limiter's answer for one request.
type Decision struct {
	// Allowed is false once the window holds more requests than the limit.
	Allowed bool
	// Remaining is the number of requests still allowed in the window
	// after this one, never below 0.
	Remaining int
	// Reset is the time until the window ends (positive).
	Reset time.Duration
}

// Decide turns the count of a fixed window into a Decision: count
// requests so far (this one included) against limit, reset until the
// window ends. Limiters of other packages answer with it too.
func Decide(count, limit int, reset time.Duration) Decision {
	return Decision{
		Allowed:   count <= limit,
		Remaining: max(limit-count, 0),
		Reset:     max(reset, time.Millisecond),
	}
}
