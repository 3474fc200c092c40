package httpapi

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultMaxKeys bounds the source addresses a MemoryLimiter tracks at
// once (about 150 bytes each, so about 40 MB at most).
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

// MemoryLimiter is a Limiter for one instance. Its memory is bounded:
// expired windows are dropped as time passes, and when MaxKeys addresses
// have open windows a new address evicts the window that opened first
// (the one closest to its end). A flood of fresh addresses therefore
// never locks out a new client: at worst an old window is forgotten early
// and its address starts a new one, so the limiter degrades towards
// leniency, never towards refusal.
type MemoryLimiter struct {
	limit   int
	window  time.Duration
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	windows map[string]*list.Element // of *memWindow
	order   *list.List               // windows by opening time, oldest first
	evicted int
}

// memWindow is one address's fixed window.
type memWindow struct {
	key   string
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
	l.windows = make(map[string]*list.Element)
	l.order = list.New()
	return l
}

// Allow implements Limiter. It never fails.
func (l *MemoryLimiter) Allow(_ context.Context, key string) (Decision, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropExpired(now)
	e, ok := l.windows[key]
	if !ok {
		l.makeRoom()
		e = l.order.PushBack(&memWindow{key: key, end: now.Add(l.window)})
		l.windows[key] = e
	}
	w := e.Value.(*memWindow)
	if w.count <= l.limit { // stop counting past the limit: no overflow
		w.count++
	}
	return decide(w.count, l.limit, w.end.Sub(now)), nil
}

// dropExpired forgets every window that has ended. Windows all have the
// same length and open at the current time, so the list is ordered by end
// as well: only its front needs looking at. Called with mu held.
func (l *MemoryLimiter) dropExpired(now time.Time) {
	for e := l.order.Front(); e != nil; e = l.order.Front() {
		w := e.Value.(*memWindow)
		if now.Before(w.end) {
			return
		}
		l.remove(e)
	}
}

// makeRoom evicts the oldest windows until a new one fits. Called with mu
// held.
func (l *MemoryLimiter) makeRoom() {
	for len(l.windows) >= l.maxKeys {
		l.remove(l.order.Front())
		l.evicted++
	}
}

func (l *MemoryLimiter) remove(e *list.Element) {
	delete(l.windows, e.Value.(*memWindow).key)
	l.order.Remove(e)
}

// Len returns the number of tracked addresses.
func (l *MemoryLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.windows)
}

// Evicted returns how many open windows were forgotten early to make
// room for new addresses since the limiter was made.
func (l *MemoryLimiter) Evicted() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}
