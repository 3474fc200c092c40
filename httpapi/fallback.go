package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Fallback defaults.
const (
	// DefaultProbeInterval is how often a FallbackLimiter whose store is
	// down asks it again.
	DefaultProbeInterval = 2 * time.Second
	// probeTimeout bounds one probe.
	probeTimeout = time.Second
)

// FallbackOptions configures a FallbackLimiter.
type FallbackOptions struct {
	// Limit is the per-source limit of the in-memory fallback; 0 means
	// DefaultRateLimit.
	Limit int
	// ProbeInterval is the pause between probes of a store that is down;
	// 0 means DefaultProbeInterval.
	ProbeInterval time.Duration
	// Logger receives one record when the store goes down and one when it
	// answers again; nil means none.
	Logger *slog.Logger
	// Probe asks the store whether it answers; nil means the primary's
	// Ping.
	Probe func(context.Context) error
	// MemoryReturner is given to the in-memory fallbacks, of the limiter
	// and of its NetworkLimits ([MemoryLimiterOptions].MemoryReturner);
	// nil means one of the limiter's own.
	MemoryReturner *MemoryReturner
}

// FallbackLimiter counts in a shared store (a [SharedLimiter]) while it answers and
// in this instance's memory while it does not: an unreachable store
// turns the shared limits into per-instance ones instead of failing every
// diagnostic. The first failed call switches to memory (logged once);
// a background probe switches back when the store answers. Calls are
// never sent to a store known to be down, so an outage costs no time per
// request.
type FallbackLimiter struct {
	primary  Limiter
	fallback Limiter
	st       *fallbackState
}

// fallbackState is shared by a FallbackLimiter and its network limits:
// one store, one state.
type fallbackState struct {
	down      atomic.Bool
	switches  atomic.Int64 // times the store went down
	decisions atomic.Int64 // decisions made in memory
	probe     func(context.Context) error
	interval  time.Duration
	logger    *slog.Logger
	ret       *MemoryReturner // of the in-memory fallbacks; nil: each its own

	mu      sync.Mutex
	probing bool
	closed  bool
	stop    chan struct{}
}

// NewFallbackLimiter returns a limiter over primary with an in-memory
// fallback of o.Limit requests per DefaultRateWindow.
func NewFallbackLimiter(primary SharedLimiter, o FallbackOptions) *FallbackLimiter {
	st := &fallbackState{probe: o.Probe, interval: o.ProbeInterval, logger: o.Logger, ret: orOwnReturner(o.MemoryReturner),
		stop: make(chan struct{})}
	if st.probe == nil {
		st.probe = primary.Ping
	}
	if st.interval <= 0 {
		st.interval = DefaultProbeInterval
	}
	if st.logger == nil {
		st.logger = slog.New(slog.DiscardHandler)
	}
	return &FallbackLimiter{primary: primary, fallback: NewMemoryLimiter(MemoryLimiterOptions{Limit: o.Limit, MemoryReturner: st.ret}), st: st}
}

// newFallbackPair is a FallbackLimiter of the given limiters sharing st.
func newFallbackPair(primary, fallback Limiter, st *fallbackState) *FallbackLimiter {
	return &FallbackLimiter{primary: primary, fallback: fallback, st: st}
}

// Allow implements Limiter: in the store while it answers, else in
// memory. It fails when the fallback does (never, for memory), or with
// the store's error when that error is ctx's own (canceled or deadline
// exceeded) and ctx has ended: a client that hangs up says nothing about
// the store, and must not switch the instance to per-instance limits. Any
// other failure (a refused or closed connection, a protocol error) is
// the store's, whatever ctx says by then: on a slow machine ctx may end
// while the client library retries a store that refuses connections, and
// the instance must still switch.
func (f *FallbackLimiter) Allow(ctx context.Context, key string) (Decision, error) {
	if !f.st.down.Load() {
		d, err := f.primary.Allow(ctx, key)
		if err == nil {
			return d, nil
		}
		if ctx.Err() != nil && isContextError(err) {
			return Decision{}, err
		}
		f.st.wentDown(err)
	}
	f.st.decisions.Add(1)
	return f.fallback.Allow(ctx, key)
}

// isContextError reports whether err is a context's end (canceled or
// deadline exceeded) rather than a failure of the store itself.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// MarkDown switches to memory as a failed call would: for a store found
// unreachable at start-up.
func (f *FallbackLimiter) MarkDown(err error) { f.st.wentDown(err) }

// Degraded reports whether the limits are per instance now (the store is
// down).
func (f *FallbackLimiter) Degraded() bool { return f.st.down.Load() }

// FallbackDecisions is the number of decisions made in memory so far.
func (f *FallbackLimiter) FallbackDecisions() int64 { return f.st.decisions.Load() }

// Outages is the number of times the store was found down.
func (f *FallbackLimiter) Outages() int64 { return f.st.switches.Load() }

// NetworkLimits returns the aggregate limits of NetworkLimits beside the
// store, each with its in-memory fallback, sharing this limiter's state.
func (f *FallbackLimiter) NetworkLimits(perSource int) []NetworkLimit {
	sl, ok := f.primary.(SharedLimiter)
	if !ok {
		return memoryNetworkLimits(perSource, f.st.ret)
	}
	shared, mem := sl.NetworkLimits(), memoryNetworkLimits(perSource, f.st.ret)
	for i := range shared {
		shared[i].Limiter = newFallbackPair(shared[i].Limiter, mem[i].Limiter, f.st)
	}
	return shared
}

// Close stops the probe. It does not close the primary.
func (f *FallbackLimiter) Close() {
	f.st.mu.Lock()
	defer f.st.mu.Unlock()
	if !f.st.closed {
		f.st.closed = true
		close(f.st.stop)
	}
}

// wentDown switches to memory and starts the probe, logging the first
// failure only.
func (s *fallbackState) wentDown(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down.Swap(true) || s.closed {
		return
	}
	s.switches.Add(1)
	s.logger.Warn("rate-limit store unreachable: counting per instance until it answers",
		slog.String("error", err.Error()))
	if !s.probing {
		s.probing = true
		go s.probeUntilUp()
	}
}

// probeUntilUp asks the store every interval until it answers, then
// switches back to it.
func (s *fallbackState) probeUntilUp() {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		err := s.probe(ctx)
		cancel()
		if err == nil {
			s.mu.Lock()
			s.probing = false
			s.down.Store(false)
			s.mu.Unlock()
			s.logger.Info("rate-limit store answers again: limits shared again")
			return
		}
	}
}
