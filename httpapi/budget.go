package httpapi

import (
	"sync"
	"time"
)

// budgets tracks the diagnostic time each source, and each IPv6 /56 and
// /48, used in its current window (DefaultRateWindow, opened by its first
// diagnostic), in milliseconds. A diagnostic is charged its whole
// deadline when it is admitted and refunded what it did not use when it
// ends, so that diagnostics running at once cannot together overdraw a
// budget. A group's budget is per times its in-flight cap over the
// per-source cap: a /56 has twice a source's, a /48 four times. Its
// memory is bounded like a MemoryLimiter's, and expired windows are
// swept on a timer.
type budgets struct {
	per time.Duration // budget per window and source; 0 disables
	now func() time.Time

	mu    sync.Mutex
	table *windowTable
}

// newBudgets returns budgets of per each, whose table returns memory
// through ret (nil: one of its own).
func newBudgets(per time.Duration, maxKeys int, now func() time.Time, ret *MemoryReturner) *budgets {
	b := &budgets{per: per, now: now}
	b.table = newWindowTable(DefaultRateWindow, maxKeys, &b.mu, now, orOwnReturner(ret))
	return b
}

// charge is what one admitted diagnostic was charged.
type charge struct {
	granted time.Duration // its deadline; 0 when budgets are disabled
	windows []chargedWindow
}

// chargedWindow is one group's window as charged.
type chargedWindow struct {
	key string
	end time.Time
	ms  int
}

// limitOf is the budget of group g in milliseconds.
func (b *budgets) limitOf(g capKey, perSource int) int {
	return int(b.per/time.Millisecond) * g.cap / max(perSource, 1)
}

// spent returns, when one of groups has less than minBudgetLeft of its
// budget left, the wait until its window ends (0 otherwise).
func (b *budgets) spent(groups []capKey, perSource int) time.Duration {
	if b.per <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	var wait time.Duration
	for _, g := range groups {
		w := b.table.peek(g.key, now)
		if w != nil && b.limitOf(g, perSource)-w.count < int(minBudgetLeft/time.Millisecond) {
			wait = max(wait, w.end.Sub(now))
		}
	}
	return wait
}

// charge charges up to want to every group: the least budget any of them
// has left, at most want. When that is under minBudgetLeft nothing is
// charged, and it returns nil and the wait until the spent window ends.
func (b *budgets) charge(groups []capKey, perSource int, want time.Duration) (*charge, time.Duration) {
	if b.per <= 0 {
		return &charge{}, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	grant := int(want / time.Millisecond)
	var wait time.Duration
	for _, g := range groups {
		w := b.table.get(g.key, now)
		left := b.limitOf(g, perSource) - w.count
		if left < int(minBudgetLeft/time.Millisecond) {
			wait = max(wait, w.end.Sub(now))
		}
		grant = min(grant, left)
	}
	if wait > 0 || grant < int(minBudgetLeft/time.Millisecond) {
		return nil, max(wait, time.Second)
	}
	c := &charge{granted: time.Duration(grant) * time.Millisecond}
	for _, g := range groups {
		w := b.table.get(g.key, now)
		w.count += grant
		c.windows = append(c.windows, chargedWindow{key: g.key, end: w.end, ms: grant})
	}
	return c, 0
}

// refund gives back what c charged beyond used, to the windows c charged
// (a window that has ended since owes nothing).
func (b *budgets) refund(c *charge, used time.Duration) {
	if b.per <= 0 || c == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	usedMS := int(max(used, time.Millisecond) / time.Millisecond)
	for _, cw := range c.windows {
		back := cw.ms - usedMS
		if back <= 0 {
			continue
		}
		if w := b.table.peek(cw.key, now); w != nil && w.end.Equal(cw.end) {
			w.count = max(w.count-back, 0)
		}
	}
}
