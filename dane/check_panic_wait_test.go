package dane

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestCheckPanicAfterEveryLookup: when a lookup panics, Check raises the
// panic only once every other lookup of its has returned, as it returns
// only then: none of its goroutines outlives it.
func TestCheckPanicAfterEveryLookup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var firstDone atomic.Bool
		r := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer {
			if name == Name("last.test") {
				panic("last")
			}
			<-release
			firstDone.Store(true)
			return resolver.Answer{Outcome: resolver.NoData}
		})
		ended := make(chan any, 1)
		go func() {
			defer func() { ended <- recover() }()
			Check(context.Background(), r, []string{"first.test", "last.test"}, true)
		}()
		synctest.Wait() // every goroutine of the bubble blocked or gone
		select {
		case p := <-ended:
			assert.Failf(t, "Check ended before its other lookup", "panic %v with the lookup of first.test still running", p)
		default:
		}
		close(release)
		synctest.Wait()
		assert.True(t, firstDone.Load())
	})
}

// TestCheckPanicFirstHost: when several lookups panic, Check raises the
// panic of the first host's.
func TestCheckPanicFirstHost(t *testing.T) {
	r := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer { panic(name) })
	assert.PanicsWithValue(t, Name("a.test"), func() { Check(context.Background(), r, []string{"a.test", "b.test", "c.test"}, true) })
}

// panicStarter is a resolver.Starter whose Start panics for one name and
// answers the others at once.
type panicStarter struct{ name string }

func (s panicStarter) Lookup(context.Context, string, resolver.Type) resolver.Answer {
	return resolver.Answer{Outcome: resolver.NoData}
}

func (s panicStarter) Start(_ context.Context, name string, _ resolver.Type, done func(resolver.Answer)) {
	if name == s.name {
		panic(name)
	}
	done(resolver.Answer{Outcome: resolver.NoData})
}

// TestCheckPanicStart: a Starter whose Start panics makes Check panic
// with that value, after the other hosts' lookups, as a lookup that
// panics does.
func TestCheckPanicStart(t *testing.T) {
	r := panicStarter{name: Name("b.test")}
	assert.PanicsWithValue(t, Name("b.test"), func() { Check(context.Background(), r, []string{"a.test", "b.test", "c.test"}, true) })
	assert.NotPanics(t, func() { Check(context.Background(), r, []string{"a.test", "c.test"}, true) })
}
