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
	limit int
	now   func() time.Time

	mu    sync.Mutex
	table *windowTable
}

// NewMemoryLimiter returns an in-memory limiter.
func NewMemoryLimiter(o MemoryLimiterOptions) *MemoryLimiter {
	l := &MemoryLimiter{limit: o.Limit, now: o.Now}
	if l.limit <= 0 {
		l.limit = DefaultRateLimit
	}
	if o.Window <= 0 {
		o.Window = DefaultRateWindow
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if l.now == nil {
		l.now = time.Now
	}
	l.table = newWindowTable(o.Window, o.MaxKeys)
	return l
}

// Allow implements Limiter. It never fails.
func (l *MemoryLimiter) Allow(_ context.Context, key string) (Decision, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.table.get(key, now)
	if w.count <= l.limit { // stop counting past the limit: no overflow
		w.count++
	}
	return decide(w.count, l.limit, w.end.Sub(now)), nil
}

// Len returns the number of tracked addresses.
func (l *MemoryLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.table.windows)
}

// Evicted returns how many open windows were forgotten early to make
// room for new addresses since the limiter was made.
func (l *MemoryLimiter) Evicted() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.table.evicted
}

// windowTable holds fixed windows by key, at most maxKeys of them. It is
// not safe for concurrent use; its owner locks.
type windowTable struct {
	window  time.Duration
	maxKeys int
	windows map[string]*list.Element // of *memWindow
	order   *list.List               // windows by opening time, oldest first
	evicted int
}

// memWindow is one key's fixed window and what was counted in it.
type memWindow struct {
	key   string
	count int
	end   time.Time
}

func newWindowTable(window time.Duration, maxKeys int) *windowTable {
	return &windowTable{window: window, maxKeys: maxKeys, windows: map[string]*list.Element{}, order: list.New()}
}

// get returns the open window of key, opening one at now when there is
// none (evicting the oldest window when the table is full).
func (t *windowTable) get(key string, now time.Time) *memWindow {
	t.dropExpired(now)
	if e, ok := t.windows[key]; ok {
		return e.Value.(*memWindow)
	}
	for len(t.windows) >= t.maxKeys {
		t.remove(t.order.Front())
		t.evicted++
	}
	w := &memWindow{key: key, end: now.Add(t.window)}
	t.windows[key] = t.order.PushBack(w)
	return w
}

// dropExpired forgets every window that has ended. Windows all have the
// same length and open at the current time, so the list is ordered by end
// as well: only its front needs looking at.
func (t *windowTable) dropExpired(now time.Time) {
	for e := t.order.Front(); e != nil; e = t.order.Front() {
		if now.Before(e.Value.(*memWindow).end) {
			return
		}
		t.remove(e)
	}
}

func (t *windowTable) remove(e *list.Element) {
	delete(t.windows, e.Value.(*memWindow).key)
	t.order.Remove(e)
}
