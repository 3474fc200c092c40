package httpapi

import (
	"context"
	"sync"
	"time"
)

// cutContext is a diagnostic's context: its parent's values and
// cancellation, a deadline set once the diagnostic is admitted, and cut,
// which ends it at once as if that deadline had passed
// (context.DeadlineExceeded). A scan whose context is cut therefore
// reports what it has, its unanswered lookups as slow, exactly as at its
// own deadline, instead of failing as a canceled request.
//
// Contexts derived from it are ended through AfterFunc, without a
// goroutine each.
type cutContext struct {
	parent context.Context
	inner  context.Context // Done and AfterFunc; canceled when the context ends
	end    context.CancelFunc

	mu       sync.Mutex
	err      error
	deadline time.Time
	timer    *time.Timer
	stop     func() bool // stops following the parent
}

// newCutContext returns a context under parent with no deadline yet.
func newCutContext(parent context.Context) *cutContext {
	c := &cutContext{parent: parent}
	c.inner, c.end = context.WithCancel(context.Background())
	c.stop = context.AfterFunc(parent, func() { c.finish(parent.Err()) })
	return c
}

// setDeadline makes the context end d from now.
func (c *cutContext) setDeadline(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.timer != nil {
		return
	}
	c.deadline = time.Now().Add(d)
	c.timer = time.AfterFunc(d, func() { c.finish(context.DeadlineExceeded) })
}

// cut ends the context now, as its deadline would.
func (c *cutContext) cut() { c.finish(context.DeadlineExceeded) }

// cancel ends the context as canceled (once the diagnostic is over).
func (c *cutContext) cancel() { c.finish(context.Canceled) }

// finish ends the context with err, once.
func (c *cutContext) finish(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.timer != nil {
		c.timer.Stop()
	}
	c.end() // Done closes with Err set; AfterFuncs run in goroutines of their own
	c.mu.Unlock()
	c.stop()
}

// Deadline implements context.Context.
func (c *cutContext) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deadline.IsZero() {
		return c.parent.Deadline()
	}
	if pd, ok := c.parent.Deadline(); ok && pd.Before(c.deadline) {
		return pd, true
	}
	return c.deadline, true
}

// Done implements context.Context.
func (c *cutContext) Done() <-chan struct{} { return c.inner.Done() }

// Err implements context.Context.
func (c *cutContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context.
func (c *cutContext) Value(key any) any { return c.parent.Value(key) }

// AfterFunc arranges for f to run once the context ends; the context
// package uses it to end derived contexts without a goroutine each.
func (c *cutContext) AfterFunc(f func()) (stop func() bool) { return context.AfterFunc(c.inner, f) }
