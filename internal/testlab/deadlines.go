package testlab

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// Deadlines is a resolver.Resolver that answers every question with no
// records at once and notes the deadline of each lookup's context: what
// a scan gives its lookups, read without a clock deciding anything.
type Deadlines struct {
	mu   sync.Mutex
	seen []time.Time
	none int // lookups whose context had no deadline
}

// Lookup notes ctx's deadline and answers with no records.
func (d *Deadlines) Lookup(ctx context.Context, _ string, _ resolver.Type) resolver.Answer {
	dl, ok := ctx.Deadline()
	d.mu.Lock()
	defer d.mu.Unlock()
	if ok {
		d.seen = append(d.seen, dl)
	} else {
		d.none++
	}
	return resolver.Answer{}
}

// Seen returns the deadlines noted, and how many lookups had none.
func (d *Deadlines) Seen() (deadlines []time.Time, none int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Time(nil), d.seen...), d.none
}

// RequireWithin requires that at least one lookup was asked, that every
// one had a deadline, and that each deadline lies timeout after a moment
// between before and after (see RequireDeadlinesWithin).
func (d *Deadlines) RequireWithin(t testing.TB, before, after time.Time, timeout time.Duration) {
	t.Helper()
	deadlines, none := d.Seen()
	require.NotEmpty(t, deadlines, "the call asked something")
	assert.Zero(t, none, "every lookup has a deadline")
	RequireDeadlinesWithin(t, deadlines, before, after, timeout)
}

// RequireDeadlinesWithin requires that each deadline lies timeout after
// a moment between before and after: the clock read around the call
// that set them, so a loaded machine widens the window and never
// decides the verdict.
func RequireDeadlinesWithin(t testing.TB, deadlines []time.Time, before, after time.Time, timeout time.Duration) {
	t.Helper()
	for _, dl := range deadlines {
		assert.False(t, dl.Before(before.Add(timeout)), "a deadline %v before the call's start plus %v", before.Add(timeout).Sub(dl), timeout)
		assert.False(t, dl.After(after.Add(timeout)), "a deadline %v after the call's end plus %v", dl.Sub(after.Add(timeout)), timeout)
	}
}
