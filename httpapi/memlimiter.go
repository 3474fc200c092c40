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
	// MemoryReturner returns memory to the system once a spray of
	// addresses has expired; nil means one of the limiter's own. A
	// service shares one between its listener, handler and limiters.
	MemoryReturner *MemoryReturner
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
	l.table = newWindowTable(o.Window, o.MaxKeys, &l.mu, l.now, orOwnReturner(o.MemoryReturner))
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
	return Decide(w.count, l.limit, w.end.Sub(now)), nil
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

// rebuildMin is the size from which a key table is rebuilt after a
// sweep has emptied most of it: a Go map keeps its buckets after its
// keys are deleted, so a table that held a spray of 262,144 keys would
// otherwise keep their space for good.
const rebuildMin = 1024

// sweepSlack is how long after the first open window ends the sweep
// timer fires, so that one timer run drops the windows that end close
// together.
const sweepSlack = time.Second

// windowTable holds fixed windows by key, at most maxKeys of them. It is
// not safe for concurrent use; its owner locks mu around every call.
// Expired windows are dropped on access and by a timer armed while the
// table is not empty (so that memory comes back after a spray even when
// no request follows), the map is rebuilt when a sweep leaves it at a
// quarter of its peak, and memory is returned to the system when a sweep
// leaves it at an eighth of returnMemoryMin windows or more.
type windowTable struct {
	window  time.Duration
	maxKeys int
	windows map[string]*list.Element // of *memWindow
	order   *list.List               // windows by opening time, oldest first
	evicted int
	peak    int // most windows held since the map was last rebuilt
	// highWater is the most windows held since the table last asked for
	// memory back (see sweep).
	highWater int

	mu      *sync.Mutex // the owner's lock, taken by the sweep timer
	now     func() time.Time
	ret     *MemoryReturner // asked to return memory when a big table shrinks
	timer   *time.Timer     // armed while windows are open
	rebuilt int             // times the map was rebuilt (tests)
}

// memWindow is one key's fixed window and what was counted in it.
type memWindow struct {
	key   string
	count int
	end   time.Time
}

func newWindowTable(window time.Duration, maxKeys int, mu *sync.Mutex, now func() time.Time, ret *MemoryReturner) *windowTable {
	return &windowTable{window: window, maxKeys: maxKeys, windows: map[string]*list.Element{}, order: list.New(), mu: mu, now: now, ret: ret}
}

// get returns the open window of key, opening one at now when there is
// none (evicting the oldest window when the table is full).
func (t *windowTable) get(key string, now time.Time) *memWindow {
	if w := t.peek(key, now); w != nil {
		return w
	}
	for len(t.windows) >= t.maxKeys {
		t.remove(t.order.Front())
		t.evicted++
	}
	w := &memWindow{key: key, end: now.Add(t.window)}
	t.windows[key] = t.order.PushBack(w)
	t.peak = max(t.peak, len(t.windows))
	t.highWater = max(t.highWater, len(t.windows))
	if t.timer == nil {
		t.timer = time.AfterFunc(t.window+sweepSlack, t.sweepTimer)
	}
	return w
}

// peek returns the open window of key, or nil.
func (t *windowTable) peek(key string, now time.Time) *memWindow {
	t.dropExpired(now)
	if e, ok := t.windows[key]; ok {
		return e.Value.(*memWindow)
	}
	return nil
}

// sweepTimer runs when the oldest window may have ended: it sweeps, and
// arms itself again for the window then oldest, if any.
func (t *windowTable) sweepTimer() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.sweep(now)
	t.timer = nil
	if front := t.order.Front(); front != nil {
		t.timer = time.AfterFunc(max(front.Value.(*memWindow).end.Sub(now), 0)+sweepSlack, t.sweepTimer)
	}
}

// sweep drops the expired windows and rebuilds the map when it has shrunk
// to a quarter of its peak.
func (t *windowTable) sweep(now time.Time) {
	t.dropExpired(now)
	if t.peak >= rebuildMin && len(t.windows) <= t.peak/4 {
		m := make(map[string]*list.Element, len(t.windows))
		for k, e := range t.windows {
			m[k] = e
		}
		t.windows, t.peak = m, len(m)
		t.rebuilt++
	}
	if t.highWater >= returnMemoryMin && len(t.windows) <= t.highWater/8 {
		t.highWater = len(t.windows)
		t.ret.request()
	}
}

// returnMemoryMin is the size from which a table's shrinking to an
// eighth of it returns memory to the system soon. The windows of a spray
// of that many keys are only about a megabyte, but they were allocated
// among a flood's short-lived objects and keep the heap's spans they lie
// in in use, and resident, until they end: 5 s after the capacity mix
// siege (its key spray of 500 a second beside 250 slow scans and 2,560
// non-reading connections), the server's heap in use was 29 MB, 24 MB of
// it in spans holding no object, around 5.6 MB of live heap; after the
// spray's windows ended, nothing collected it (`mailauth serve`'s GOGC
// 400 and no traffic).
const returnMemoryMin = 1 << 12

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
