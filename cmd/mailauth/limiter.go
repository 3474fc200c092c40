package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/httpapi/redislimit"
	"github.com/mailauth/mailauth/internal/ops"
	"github.com/redis/go-redis/v9"
)

// failClosedPingInterval is how often readiness asks a Redis store that
// has no fallback (-ratelimit-fail-closed) whether it answers.
const failClosedPingInterval = 5 * time.Second

// serveLimiter is the rate limiter of a running service, its aggregate
// limits, and what readiness and metrics read of it.
type serveLimiter struct {
	limiter  httpapi.Limiter
	networks []httpapi.NetworkLimit // nil: httpapi's defaults
	fallback *httpapi.FallbackLimiter
	storeOK  atomic.Bool // fail-closed Redis: the last ping answered
	redis    bool
	close    func()
}

// state is the rate-limit component of readiness: ok in memory or with
// Redis answering; degraded while a fallback counts per instance; down
// when Redis does not answer and -ratelimit-fail-closed is set.
func (l *serveLimiter) state() ops.State {
	switch {
	case !l.redis:
		return ops.StateOK
	case l.fallback != nil && l.fallback.Degraded():
		return ops.StateDegraded
	case l.fallback == nil && !l.storeOK.Load():
		return ops.StateDown
	}
	return ops.StateOK
}

// openLimiter builds the configured rate limiter: in memory, or in Redis
// with an in-memory fallback while Redis does not answer (unless
// -ratelimit-fail-closed: then diagnostics answer 500 while it does not,
// and readiness is down). Its tables in memory return memory through mem
// (nil: their own).
func openLimiter(ctx context.Context, c serveConfig, secret []byte, logger *slog.Logger, mem *httpapi.MemoryReturner) (*serveLimiter, error) {
	if c.rateLimit == "memory" {
		ml := httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: c.rateLimitMax, MemoryReturner: mem})
		return &serveLimiter{limiter: ml, close: func() {}}, nil
	}
	redis.SetLogger(redisLog{logger})
	rl, err := redislimit.Open(c.rateLimit, redislimit.Options{Limit: c.rateLimitMax, Secret: secret})
	if err != nil {
		// The parser's error quotes the URL, which may carry the Redis
		// password: only a fixed message names the flag.
		return nil, errInvalidRedisURL
	}
	pctx, cancel := context.WithTimeout(ctx, redisPingTimeout)
	perr := rl.Ping(pctx)
	cancel()
	l := &serveLimiter{redis: true}
	l.storeOK.Store(perr == nil)
	if c.failClosed {
		if perr != nil {
			logger.Warn("rate-limit store unreachable and -ratelimit-fail-closed is set: diagnostic requests answer 500 until it answers")
		}
		pingCtx, stop := context.WithCancel(ctx)
		go l.pingLoop(pingCtx, rl)
		l.limiter, l.close = rl, func() { stop(); _ = rl.Close() }
		return l, nil
	}
	l.fallback = httpapi.NewFallbackLimiter(rl, httpapi.FallbackOptions{Limit: c.rateLimitMax, Logger: logger, MemoryReturner: mem})
	if perr != nil {
		l.fallback.MarkDown(perr)
	}
	l.limiter, l.networks = l.fallback, l.fallback.NetworkLimits(c.rateLimitMax)
	l.close = func() { l.fallback.Close(); _ = rl.Close() }
	return l, nil
}

// pingLoop keeps storeOK current for a limiter without fallback.
func (l *serveLimiter) pingLoop(ctx context.Context, rl *redislimit.Limiter) {
	t := time.NewTicker(failClosedPingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, redisPingTimeout)
		l.storeOK.Store(rl.Ping(pctx) == nil)
		cancel()
	}
}

// registerMetrics adds the limiter's figures.
func (l *serveLimiter) registerMetrics(m *ops.Metrics) {
	m.GaugeFunc("mailauth_ratelimit_degraded", "1 while the rate-limit store does not answer and limits are counted per instance.", func() float64 {
		return boolFloat(l.fallback != nil && l.fallback.Degraded())
	})
	m.CounterFunc("mailauth_ratelimit_fallback_decisions_total", "Rate-limit decisions made in this instance's memory because the shared store did not answer.", func() float64 {
		if l.fallback == nil {
			return 0
		}
		return float64(l.fallback.FallbackDecisions())
	})
	m.CounterFunc("mailauth_ratelimit_store_outages_total", "Times the shared rate-limit store was found unreachable.", func() float64 {
		if l.fallback == nil {
			return 0
		}
		return float64(l.fallback.Outages())
	})
}

// boolFloat is 1 for true, 0 for false.
func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
