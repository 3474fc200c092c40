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
// Contexts derived from it follow it through its AfterFunc method, which
// the context package calls for a parent that is not one of its own: the
// goroutine that ends the context ends them, as a context.WithCancel
// parent would, rather than one goroutine each.
type cutContext struct {
	parent context.Context
	done   chan struct{} // closed when the context ends

	mu       sync.Mutex
	err      error
	deadline time.Time
	timer    *time.Timer
	stop     func() bool // stops following the parent
	next     uint64
	after    map[uint64]func() // AfterFunc's funcs not yet run or stopped
}

// newCutContext returns a context under parent with no deadline yet.
func newCutContext(parent context.Context) *cutContext {
	c := &cutContext{parent: parent, done: make(chan struct{})}
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

// finish ends the context with err, once, and then runs the funcs given
// to AfterFunc, in the calling goroutine and without c's lock (each
// reads Err).
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
	close(c.done)
	after := c.after
	c.after = nil
	c.mu.Unlock()
	c.stop()
	for _, f := range after {
		f()
	}
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
func (c *cutContext) Done() <-chan struct{} { return c.done }

// Err implements context.Context.
func (c *cutContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context.
func (c *cutContext) Value(key any) any { return c.parent.Value(key) }

// AfterFunc arranges for f to run once the context ends, and returns a
// func that stops it (reporting whether it did). The context package
// calls it to have a derived context end with this one; f then runs in
// the goroutine that ends the context (finish), so it must be short and
// must not block, as the context package's funcs are: they end a derived
// context, and a func that context.AfterFunc was given runs in a
// goroutine of its own all the same. A context that has already ended
// runs f in a goroutine of its own, as context.AfterFunc does: the
// context package calls this method with the derived context's lock
// held, and f takes that lock.
func (c *cutContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.next++
	id := c.next
	if c.after == nil {
		c.after = make(map[uint64]func())
	}
	c.after[id] = f
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.after[id]
		delete(c.after, id)
		return ok
	}
}
