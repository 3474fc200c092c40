package resolver_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// syncStarter is a Starter that calls done before Start returns.
type syncStarter struct {
	starts  atomic.Int32
	lookups atomic.Int32
}

func (s *syncStarter) Lookup(_ context.Context, name string, _ resolver.Type) resolver.Answer {
	s.lookups.Add(1)
	return resolver.Answer{Outcome: resolver.NXDomain, Reason: resolver.Reason(name)}
}

func (s *syncStarter) Start(_ context.Context, name string, _ resolver.Type, done func(resolver.Answer)) {
	s.starts.Add(1)
	done(resolver.Answer{Outcome: resolver.NoData, Reason: resolver.Reason(name)})
}

// laterStarter is a Starter that calls done later, from a goroutine of
// its own, once release is closed or the lookup's context ends (then
// with what it was told to give on cancellation).
type laterStarter struct {
	release  chan struct{}
	canceled resolver.Answer
}

func (s *laterStarter) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	p := resolver.Begin(ctx, s, name, qtype)
	return p.Wait()
}

func (s *laterStarter) Start(ctx context.Context, name string, _ resolver.Type, done func(resolver.Answer)) {
	go func() {
		select {
		case <-s.release:
			done(resolver.Answer{Outcome: resolver.Found, Reason: resolver.Reason(name)})
		case <-ctx.Done():
			done(s.canceled)
		}
	}()
}

// TestBeginFallback: over a Resolver that is not a Starter, Begin looks
// the question up (in a goroutine) and Wait returns its answer, as often
// as it is called.
func TestBeginFallback(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	r := resolver.Func(func(_ context.Context, name string, qtype resolver.Type) resolver.Answer {
		asked.Add(1)
		assert.Equal(t, "a.test", name)
		assert.Equal(t, resolver.TypeAAAA, qtype)
		return resolver.Answer{Outcome: resolver.NXDomain}
	})
	p := resolver.Begin(context.Background(), r, "a.test", resolver.TypeAAAA)
	assert.Equal(t, resolver.NXDomain, p.Wait().Outcome)
	assert.Equal(t, resolver.NXDomain, p.Wait().Outcome)
	assert.Equal(t, int32(1), asked.Load())
}

// TestBeginFallbackRunsConcurrently: two questions begun over a plain
// Resolver are both asked before either is answered.
func TestBeginFallbackRunsConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var asked atomic.Int32
		r := resolver.Func(func(_ context.Context, _ string, _ resolver.Type) resolver.Answer {
			asked.Add(1)
			<-release
			return resolver.Answer{Outcome: resolver.NoData}
		})
		a := resolver.Begin(context.Background(), r, "a.test", resolver.TypeA)
		b := resolver.Begin(context.Background(), r, "a.test", resolver.TypeAAAA)
		synctest.Wait()
		assert.Equal(t, int32(2), asked.Load())
		close(release)
		assert.Equal(t, resolver.NoData, a.Wait().Outcome)
		assert.Equal(t, resolver.NoData, b.Wait().Outcome)
	})
}

// TestBeginFallbackPanic: a panic of the lookup Begin runs in a goroutine
// is raised again by Wait, with the same value, in the goroutine that
// waits, and by every Wait.
func TestBeginFallbackPanic(t *testing.T) {
	t.Parallel()
	r := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { panic("lookup") })
	p := resolver.Begin(context.Background(), r, "a.test", resolver.TypeA)
	assert.PanicsWithValue(t, "lookup", func() { p.Wait() })
	assert.PanicsWithValue(t, "lookup", func() { p.Wait() })
}

// TestBeginStarterSynchronous: a Starter that answers before Start
// returns is asked through Start, never Lookup, and Wait returns what it
// gave.
func TestBeginStarterSynchronous(t *testing.T) {
	t.Parallel()
	s := &syncStarter{}
	p := resolver.Begin(context.Background(), s, "a.test", resolver.TypeTXT)
	a := p.Wait()
	assert.Equal(t, resolver.NoData, a.Outcome)
	assert.Equal(t, resolver.Reason("a.test"), a.Reason)
	assert.Equal(t, int32(1), s.starts.Load())
	assert.Zero(t, s.lookups.Load())
}

// TestBeginStarterLater: a Starter that answers later, from a goroutine
// of its own: Begin returns at once, Wait blocks until the answer lands.
func TestBeginStarterLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &laterStarter{release: make(chan struct{})}
		p := resolver.Begin(context.Background(), s, "a.test", resolver.TypeMX)
		got := make(chan resolver.Answer, 1)
		go func() { got <- p.Wait() }()
		synctest.Wait()
		select {
		case <-got:
			require.Fail(t, "Wait returned before the Starter answered")
		default:
		}
		close(s.release)
		a := <-got
		assert.Equal(t, resolver.Found, a.Outcome)
		assert.Equal(t, resolver.Reason("a.test"), a.Reason)
	})
}

// TestBeginWaitAfterCancel: when the context ends first, Wait returns
// what the Starter gave then, and keeps returning it.
func TestBeginWaitAfterCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		canceled := resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout}
		s := &laterStarter{release: make(chan struct{}), canceled: canceled}
		ctx, cancel := context.WithCancel(context.Background())
		p := resolver.Begin(ctx, s, "a.test", resolver.TypeA)
		cancel()
		assert.Equal(t, canceled, p.Wait())
		close(s.release) // the Starter has answered already: nothing more lands
		synctest.Wait()
		assert.Equal(t, canceled, p.Wait())
	})
}

// TestStart: Start hands the answer to done through the Starter's Start,
// or, over a plain Resolver, from a goroutine that waits on Lookup.
func TestStart(t *testing.T) {
	t.Parallel()
	s := &syncStarter{}
	var got resolver.Answer
	resolver.Start(context.Background(), s, "a.test", resolver.TypeA, func(a resolver.Answer) { got = a })
	assert.Equal(t, resolver.NoData, got.Outcome) // before Start returned: this Starter answers at once
	assert.Zero(t, s.lookups.Load())

	r := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Reason: resolver.Reason(name)}
	})
	ch := make(chan resolver.Answer, 1)
	resolver.Start(context.Background(), r, "b.test", resolver.TypeA, func(a resolver.Answer) { ch <- a })
	a := <-ch
	assert.Equal(t, resolver.Found, a.Outcome)
	assert.Equal(t, resolver.Reason("b.test"), a.Reason)
}
