package httpapi

import (
	"sync"
	"time"
)

// budgets tracks the diagnostic time each source used in its current
// window (DefaultRateWindow, opened by its first diagnostic), in
// milliseconds. Its memory is bounded like a MemoryLimiter's.
type budgets struct {
	per time.Duration // budget per window; 0 disables
	now func() time.Time

	mu    sync.Mutex
	table *windowTable
}

func newBudgets(per time.Duration, maxKeys int, now func() time.Time) *budgets {
	return &budgets{per: per, now: now, table: newWindowTable(DefaultRateWindow, maxKeys)}
}

// left returns the budget source has left in its window, or the whole
// budget when disabled (per <= 0 means no budget).
func (b *budgets) left(source string) time.Duration {
	if b.per <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	used := time.Duration(b.table.get(source, b.now()).count) * time.Millisecond
	return max(b.per-used, 0)
}

// spend charges d to source.
func (b *budgets) spend(source string, d time.Duration) {
	if b.per <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.table.get(source, b.now())
	w.count += int(max(d, time.Millisecond) / time.Millisecond)
}
