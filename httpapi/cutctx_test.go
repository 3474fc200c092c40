package httpapi

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCutEndsDerivedContextsInPlace: the contexts derived from a
// cutContext, and theirs in turn, have ended by the time cut returns, each
// as at its deadline: the goroutine that cuts ends them, with no
// goroutine started for each.
func TestCutEndsDerivedContextsInPlace(t *testing.T) {
	t.Parallel()
	c := newCutContext(context.Background())
	c.setDeadline(time.Hour)
	var derived []context.Context
	for i := range 500 {
		var ctx context.Context
		var cancel context.CancelFunc
		if i%2 == 0 {
			ctx, cancel = context.WithCancel(c)
		} else {
			ctx, cancel = context.WithTimeout(c, time.Hour)
		}
		t.Cleanup(cancel)
		grand, cancelGrand := context.WithCancel(ctx)
		t.Cleanup(cancelGrand)
		derived = append(derived, ctx, grand)
	}
	c.cut()
	for i, ctx := range derived {
		select {
		case <-ctx.Done():
		default:
			require.Failf(t, "a derived context is still open after cut returned", "context %d", i)
		}
		require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, "context %d", i)
	}
}

// TestCutContextForgetsEndedChildren: a derived context that ends on its
// own (its cancel func, or its own deadline) leaves nothing behind in the
// cutContext, so a long diagnostic deriving many contexts holds none of
// them.
func TestCutContextForgetsEndedChildren(t *testing.T) {
	t.Parallel()
	c := newCutContext(context.Background())
	for range 200 {
		_, cancel := context.WithCancel(c)
		cancel()
	}
	short, cancel := context.WithTimeout(c, time.Millisecond)
	defer cancel()
	<-short.Done()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.after) == 0
	}, 10*time.Second, time.Millisecond, "every ended child is forgotten")
	c.cut()
	require.ErrorIs(t, short.Err(), context.DeadlineExceeded)
}

// TestCutContextAfterFuncs: a func given to context.AfterFunc still runs
// in a goroutine of its own (a func that blocks does not hold up the cut);
// AfterFunc on a context that has ended runs its func and its stop
// reports false; a stopped func never runs.
func TestCutContextAfterFuncs(t *testing.T) {
	t.Parallel()
	c := newCutContext(context.Background())
	release := make(chan struct{})
	ran := make(chan struct{})
	context.AfterFunc(c, func() {
		<-release
		close(ran)
	})
	stopped := make(chan struct{}, 1)
	stop := c.AfterFunc(func() { stopped <- struct{}{} })
	require.True(t, stop(), "a func not yet run is stopped")
	require.False(t, stop(), "a second stop reports false")

	c.cut() // returns although the AfterFunc func blocks
	close(release)
	<-ran
	assert.Empty(t, stopped, "a stopped func never runs")

	late := make(chan struct{})
	stop = c.AfterFunc(func() { close(late) })
	<-late
	assert.False(t, stop(), "a func on an ended context is not stopped")

	child, cancel := context.WithCancel(c)
	defer cancel()
	assert.ErrorIs(t, child.Err(), context.DeadlineExceeded, "a context derived after the cut has ended with it")
}

// TestCutContextDerivingWhileCut: contexts derived while another
// goroutine cuts all end, each as at its deadline (run with -race).
func TestCutContextDerivingWhileCut(t *testing.T) {
	t.Parallel()
	for range 20 {
		c := newCutContext(context.Background())
		var wg sync.WaitGroup
		ctxs := make([]context.Context, 64)
		for i := range ctxs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithCancel(c)
				t.Cleanup(cancel)
				ctxs[i] = ctx
			}()
		}
		c.cut()
		wg.Wait()
		for _, ctx := range ctxs {
			<-ctx.Done()
			require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
		}
	}
}
