package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// passedDeadline is a context whose deadline has passed while it does
// not say so yet: the moment between a deadline and its context's timer.
type passedDeadline struct{ context.Context }

func (passedDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// TestCanceledAtTheDeadlineIsLate: a lookup answered ReasonCanceled in
// the moment after the scan's deadline, before the context says so, is
// noted late: the scan's time ran out, which is slowness, not a fault
// nobody can name (a slow domain was reported as "DNS answers were
// unusable" otherwise).
func TestCanceledAtTheDeadlineIsLate(t *testing.T) {
	l := &faultLog{domain: "slow.example"}
	a := resolver.Fail(resolver.ReasonCanceled)
	l.note(passedDeadline{context.Background()}, "slow.example", resolver.TypeTXT, &a, time.Now())
	l.note(context.Background(), "slow.example", resolver.TypeMX, &a, time.Now())
	got := l.logged()
	require.Len(t, got, 2)
	assert.True(t, got[0].late, "canceled past the deadline is late")
	assert.False(t, got[1].late, "canceled with no deadline passed is not")
}
