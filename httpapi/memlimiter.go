package httpapi

import (
	"context"
	"sync"
	"time"
)

// DefaultMaxKeys bounds the source addresses a MemoryLimiter tracks at
// once (about 100 bytes each).
const DefaultMaxKeys = 1 << 18

// MemoryLimiterOptions configures a MemoryLimiter; zero fields take the
// defaults.
type MemoryLimiterOptions struct {
	// Limit is the number of requests allowed per window; 0 means
	// DefaultRateLimit.
	Limit int
	// Window is the window length; 0 means DefaultRateWindow.
	Window time.Duration
	// MaxKeys bounds the tracked addresses; 0 means DefaultMaxKeys.
	MaxKeys int
	// Now is the clock; nil means time.Now. Tests inject one to move past
	// a window without sleeping.
	Now func() time.Time
}

// MemoryLimiter is a Limiter for one instance. Its memory is bounded: a
// sweep drops expired windows once per window length, and when MaxKeys
// addresses have open windows a new address is refused with
// ErrLimiterFull.
type MemoryLimiter struct {
	limit   int
	window  time.Duration
	maxKeys int
	now     func() time.Time

	mu        sync.Mutex
	windows   map[string]memWindow
	nextSweep time.Time // no sweep before this
	earliest  time.Time // no open window ends before this
}

// memWindow is one address's fixed window.
type memWindow struct {
	count int
	end   time.Time
}

// NewMemoryLimiter returns an in-memory limiter.
func NewMemoryLimiter(o MemoryLimiterOptions) *MemoryLimiter {
	l := &MemoryLimiter{limit: o.Limit, window: o.Window, maxKeys: o.MaxKeys, now: o.Now}
	if l.limit <= 0 {
		l.limit = DefaultRateLimit
	}
	if l.window <= 0 {
		l.window = DefaultRateWindow
	}
	if l.maxKeys <= 0 {
		l.maxKeys = DefaultMaxKeys
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.windows = make(map[string]memWindow)
	return l
}

// Allow implements Limiter. It never fails except with ErrLimiterFull.
func (l *MemoryLimiter) Allow(_ context.Context, key string) (Decision, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !now.Before(l.nextSweep) {
		l.sweep(now)
	}
	w, ok := l.windows[key]
	if !ok || !now.Before(w.end) {
		if !ok && len(l.windows) >= l.maxKeys {
			if now.Before(l.earliest) {
				return Decision{}, ErrLimiterFull
			}
			l.sweep(now)
			if len(l.windows) >= l.maxKeys {
				return Decision{}, ErrLimiterFull
			}
		}
		w = memWindow{end: now.Add(l.window)}
		if len(l.windows) == 0 || w.end.Before(l.earliest) {
			l.earliest = w.end
		}
	}
	if w.count <= l.limit { // stop counting past the limit: no overflow
		w.count++
	}
	l.windows[key] = w
	return decide(w.count, l.limit, w.end.Sub(now)), nil
}

// sweep drops every expired window and schedules the next sweep. Called
// with mu held.
func (l *MemoryLimiter) sweep(now time.Time) {
	var earliest time.Time
	for k, w := range l.windows {
		if !now.Before(w.end) {
			delete(l.windows, k)
			continue
		}
		if earliest.IsZero() || w.end.Before(earliest) {
			earliest = w.end
		}
	}
	l.earliest = earliest
	l.nextSweep = now.Add(l.window)
}

// Len returns the number of tracked addresses.
func (l *MemoryLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.windows)
}
