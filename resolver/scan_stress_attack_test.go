package resolver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// TestScanLazyDoneStress: many callers ask a few questions at once, some
// with contexts that end at random, some questions panic below and some
// come back canceled; every caller returns (no lost wake-up), an answer
// taken is the one the resolver below gave for that name (read after it
// was published: -race), and the budget counts each distinct question,
// a canceled one included, once per send.
func TestScanLazyDoneStress(t *testing.T) {
	t.Parallel()
	for round := range 200 {
		var sends atomic.Int64
		below := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			sends.Add(1)
			time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond) // callers overlap: waiters make done
			switch {
			case name == "panic.example":
				panic("below")
			case ctx.Err() != nil:
				return resolver.Fail(resolver.ReasonCanceled)
			}
			return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Target: "t." + name}}}
		})
		const budget = 1000
		s := resolver.NewScan(below, budget)
		names := []string{"a.example", "B.example", "b.example.", "panic.example", "c.example"}
		var wg sync.WaitGroup
		var returned atomic.Int64
		const callers = 40
		for i := range callers {
			wg.Go(func() {
				defer returned.Add(1)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if i%3 == 0 {
					go func() {
						time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
						cancel()
					}()
				}
				name := names[i%len(names)]
				a := s.Lookup(ctx, name, resolver.TypeMX)
				switch {
				case name == "panic.example":
					if a.Outcome != resolver.Inconclusive {
						t.Errorf("panic question: %+v", a)
					}
				case a.Outcome == resolver.Found:
					want := resolver.CanonicalName(name)
					if len(a.Records) != 1 || a.Records[0].Name != want || a.Records[0].Target != "t."+want {
						t.Errorf("answer for %q: %+v", name, a.Records)
					}
				case a.Reason != resolver.ReasonCanceled:
					t.Errorf("answer for %q: %+v", name, a)
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: %d of %d callers returned (lost wake-up)", round, returned.Load(), callers)
		}
		if got := int64(s.Queries()); got != sends.Load() {
			t.Fatalf("round %d: log %d, sends %d", round, got, sends.Load())
		}
		// A question asked after the storm is answered from the scan
		// (landed, no channel) or sent again if every send was canceled.
		a := s.Lookup(context.Background(), "a.example", resolver.TypeMX)
		if a.Outcome != resolver.Found {
			t.Fatalf("round %d: after: %+v", round, a)
		}
	}
}

// TestScanBudgetWithLazyDone: past the budget, waiters on a question in
// flight still get its answer, and new questions are refused at once.
func TestScanBudgetWithLazyDone(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var sent atomic.Int64
	below := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		sent.Add(1)
		<-release
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name}}}
	})
	s := resolver.NewScan(below, 2)
	var wg sync.WaitGroup
	out := make([]resolver.Answer, 20)
	for i := range out {
		wg.Go(func() { out[i] = s.Lookup(context.Background(), fmt.Sprintf("q%d.example", i%2), resolver.TypeA) })
	}
	// Both questions in flight: the budget is spent.
	require.Eventually(t, func() bool { return sent.Load() == 2 }, time.Minute, time.Millisecond)
	a := s.Lookup(context.Background(), "new.example", resolver.TypeA)
	require.Equal(t, resolver.ReasonBudgetExhausted, a.Reason, "a new question past the budget")
	close(release)
	wg.Wait()
	for i, a := range out {
		require.Equal(t, resolver.Found, a.Outcome, "caller %d", i)
		require.Equal(t, fmt.Sprintf("q%d.example", i%2), a.Records[0].Name, "caller %d", i)
	}
	require.Equal(t, 2, s.Queries())
}
