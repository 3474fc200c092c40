package testlab

import (
	"context"
	"sync"
)

// Deadline is a context whose deadline passes when the test calls Pass,
// not when a clock says: a deadline by the clock, made before the code
// under test has asked anything, may pass before it does on a loaded
// machine, and the code then rightly does something else (asks nothing,
// and reports a cancellation instead of a time-out). Its Done and Err
// are its own; the parent gives its values and its Deadline, which only
// bounds a hang.
type Deadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

// NewDeadline returns a Deadline below parent, not yet passed.
func NewDeadline(parent context.Context) *Deadline {
	return &Deadline{Context: parent, done: make(chan struct{})}
}

// Done is closed by Pass.
func (d *Deadline) Done() <-chan struct{} { return d.done }

// Err is context.DeadlineExceeded once Pass was called, nil before.
func (d *Deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Pass makes the deadline pass. It is safe to call more than once.
func (d *Deadline) Pass() { d.once.Do(func() { close(d.done) }) }
