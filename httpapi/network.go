package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// NetworkLimit is an aggregate rate limit over every IPv6 source in one
// prefix, counted besides the per-source limit (an IPv6 /64): one end
// site usually holds a /56 or a /48 (RFC 6177), that is 256 or 65,536
// /64s, each with its own per-source allowance.
type NetworkLimit struct {
	// Bits is the prefix length the sources are aggregated by (1..63).
	Bits int
	// Limiter counts the requests of each prefix; its key is the prefix
	// ("2001:db8:100::/56").
	Limiter Limiter
}

// Aggregate limits by default: a /56 may send as much as 4 sources, a /48
// as much as 16, per window. They scale with the per-source limit.
const (
	network56Factor = 4
	network48Factor = 16
)

// MemoryNetworkLimits returns the default aggregate limits for a
// per-source limit of perSource requests per DefaultRateWindow (0 means
// DefaultRateLimit), counted in memory.
func MemoryNetworkLimits(perSource int) []NetworkLimit {
	return memoryNetworkLimits(perSource, nil)
}

// memoryNetworkLimits is MemoryNetworkLimits whose limiters return memory
// through ret (nil: one of their own, shared by both).
func memoryNetworkLimits(perSource int, ret *MemoryReturner) []NetworkLimit {
	ret = orOwnReturner(ret)
	return NewNetworkLimits(perSource, func(_, limit int) Limiter {
		return NewMemoryLimiter(MemoryLimiterOptions{Limit: limit, MemoryReturner: ret})
	})
}

// NewNetworkLimits returns the default aggregate limits for a per-source
// limit of perSource requests per window (0 means DefaultRateLimit): a
// /56 and a /48, each counted by the Limiter that newLimiter returns for
// its prefix length and its limit (a multiple of perSource). A
// [SharedLimiter] builds its NetworkLimits with it.
func NewNetworkLimits(perSource int, newLimiter func(bits, limit int) Limiter) []NetworkLimit {
	if perSource <= 0 {
		perSource = DefaultRateLimit
	}
	return []NetworkLimit{
		{Bits: 56, Limiter: newLimiter(56, network56Factor*perSource)},
		{Bits: 48, Limiter: newLimiter(48, network48Factor*perSource)},
	}
}

// defaultNetworkLimits picks the aggregate limits New uses when Options
// leaves them nil: in the store beside a SharedLimiter, else in memory,
// returning memory through ret.
func defaultNetworkLimits(l Limiter, ret *MemoryReturner) []NetworkLimit {
	if sl, ok := l.(SharedLimiter); ok {
		return sl.NetworkLimits()
	}
	if ml, ok := l.(*MemoryLimiter); ok {
		return memoryNetworkLimits(ml.limit, ret)
	}
	return memoryNetworkLimits(0, ret)
}

// allowNetworks counts one request of an IPv6 client against each
// aggregate limit. It returns the wait until the first exhausted window
// ends (0 when every limit allows), or an error when a limiter failed.
func (h *handler) allowNetworks(ctx context.Context, a netip.Addr) (time.Duration, error) {
	if !a.Is6() || a.Is4In6() {
		return 0, nil
	}
	for _, n := range h.networks {
		d, err := n.Limiter.Allow(ctx, netip.PrefixFrom(a, n.Bits).Masked().String())
		if err != nil {
			return 0, err
		}
		if !d.Allowed {
			return d.Reset, nil
		}
	}
	return 0, nil
}

// networkAllowed applies the aggregate limits after the per-source limit
// allowed r. A refusal is a 429 with Retry-After; X-RateLimit-Remaining
// keeps the per-source value the contract defines.
func (h *handler) networkAllowed(w http.ResponseWriter, r *http.Request) bool {
	wait, err := h.allowNetworks(r.Context(), sourceIP(r, h.proxies))
	switch {
	case err != nil:
		writeError(w, r, errLimiterDown)
		return false
	case wait > 0:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		writeError(w, r, errNetworkLimited)
		return false
	}
	return true
}
