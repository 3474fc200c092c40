package resolver_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// lookupAll asks n concurrent copies of the question names[i%len(names)]
// and returns the answers.
func lookupAll(ctx context.Context, r resolver.Resolver, n int, qtype resolver.Type, names ...string) []resolver.Answer {
	out := make([]resolver.Answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = r.Lookup(ctx, names[i%len(names)], qtype) })
	}
	wg.Wait()
	return out
}

// TestScanDedupe: identical concurrent questions, in any case and with or
// without the trailing dot, reach the server once; the server's delay
// makes sure they overlap.
func TestScanDedupe(t *testing.T) {
	t.Parallel()
	z := zones(t)
	const name = "a.resolver.test"
	want := found(rrA(name, "192.0.2.1"), rrA(name, "192.0.2.2"))
	tests := []struct {
		name  string
		n     int
		names []string
	}{
		{"two", 2, []string{name}},
		{"fifty", 50, []string{name}},
		{"case-variants", 12, []string{name, "A.RESOLVER.TEST", "a.Resolver.Test.", name + "."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.SetFault(name, dnstest.AnyType, dnstest.Delay(200*time.Millisecond))
			scan := resolver.NewScan(client(srv), 0)
			for i, got := range lookupAll(t.Context(), scan, tc.n, resolver.TypeA, tc.names...) {
				if i == 0 {
					assert.Equal(t, want, got, "answer mismatch")
				} else {
					assert.Equal(t, show(want), show(got), "lookup %d", i)
				}
			}
			assert.Equal(t, 1, srv.Count(name, resolver.TypeA), "server received questions, want 1")
			assert.Equal(t, 1, scan.Queries(), "Queries()")
		})
	}
}

// TestScanCache: a scan answers a repeated question, whatever its outcome,
// from its cache; another type or another name is another question.
func TestScanCache(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("nodata.resolver.test", dnstest.AnyType, dnstest.ServFail)
	scan := resolver.NewScan(client(srv), 0)
	ctx := t.Context()
	questions := []struct {
		name  string
		qtype resolver.Type
		want  resolver.Outcome
	}{
		{"a.resolver.test", resolver.TypeA, resolver.Found},
		{"a.resolver.test", resolver.TypeAAAA, resolver.NoData},
		{"missing.resolver.test", resolver.TypeA, resolver.NXDomain},
		{"nodata.resolver.test", resolver.TypeA, resolver.Inconclusive},
	}
	for round := 0; round < 3; round++ {
		for _, q := range questions {
			got := scan.Lookup(ctx, q.name, q.qtype)
			assert.Equal(t, q.want, got.Outcome, "round %d, %s %s: %s", round, q.name, q.qtype, show(got))
		}
	}
	for _, q := range questions {
		want := 1
		if q.want == resolver.Inconclusive {
			want = 2 // the SERVFAIL is asked once more before it counts
		}
		assert.Equal(t, want, srv.Count(q.name, q.qtype), "%s %s reached the server, want %d", q.name, q.qtype, want)
	}
	assert.Equal(t, len(questions), scan.Queries(), "Queries()")
	// Another scan over the same client shares nothing.
	resolver.NewScan(client(srv), 0).Lookup(ctx, "a.resolver.test", resolver.TypeA)
	assert.Equal(t, 2, srv.Count("a.resolver.test", resolver.TypeA), "a second scan: server count")
}

// TestScanAnswersLandedAfterItsContextEnded: a question the scan has an
// answer for is answered from its cache even when the caller's context
// has ended (a check that starts late, once its first answers are in,
// gets them); a question not asked before is answered canceled, unsent.
func TestScanAnswersLandedAfterItsContextEnded(t *testing.T) {
	t.Parallel()
	mem := dnstest.NewResolver(zones(t))
	scan := resolver.NewScan(mem, 0)
	first := scan.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
	require.Equal(t, resolver.Found, first.Outcome, show(first))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := scan.Lookup(ctx, "a.resolver.test", resolver.TypeA)
	assert.Equal(t, first, got, "the answer in the scan's cache")
	got = scan.Lookup(ctx, "missing.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.ReasonCanceled, got.Reason, "a new question: %s", show(got))
	assert.Len(t, mem.Queries(), 1, "questions sent")
}

// TestScanAnswersAreCopies: a caller that edits its answer does not change
// what the next caller gets.
func TestScanAnswersAreCopies(t *testing.T) {
	t.Parallel()
	scan := resolver.NewScan(dnstest.NewResolver(zones(t)), 0)
	first := scan.Lookup(t.Context(), "txt.resolver.test", resolver.TypeTXT)
	want := show(first)
	first.Records[0], first.Records[1] = first.Records[1], first.Records[0]
	first.Records[0].TXT[0] = "changed"
	second := scan.Lookup(t.Context(), "txt.resolver.test", resolver.TypeTXT)
	assert.Equal(t, want, show(second), "cached answer changed")
	alias := scan.Lookup(t.Context(), "alias.resolver.test", resolver.TypeA)
	alias.CNAMEs[0] = "changed"
	got := scan.Lookup(t.Context(), "alias.resolver.test", resolver.TypeA)
	assert.Equal(t, "a.resolver.test", got.CNAMEs[0], "cached CNAMEs changed: %q", got.CNAMEs)
}

// TestScanBudget: past the budget, every new question is inconclusive at
// once and reaches nobody; questions already asked are still answered.
func TestScanBudget(t *testing.T) {
	t.Parallel()
	mem := dnstest.NewResolver(zones(t))
	scan := resolver.NewScan(mem, 3)
	ctx := t.Context()
	for _, name := range []string{"a", "aaaa", "mx"} {
		got := scan.Lookup(ctx, name+".resolver.test", resolver.TypeA)
		require.True(t, got.Conclusive(), "%s within budget: %s", name, show(got))
	}
	for i := range 100 {
		start := time.Now()
		got := scan.Lookup(ctx, fmt.Sprintf("n%d.resolver.test", i), resolver.TypeA)
		assert.Equal(t, inconclusive(resolver.ReasonBudgetExhausted, -1), got, "answer mismatch")
		elapsed := time.Since(start)
		require.LessOrEqual(t, elapsed, time.Second, "budget-exhausted lookup took %v", elapsed)
	}
	got := scan.Lookup(ctx, "A.resolver.test.", resolver.TypeA)
	assert.Equal(t, resolver.Found, got.Outcome, "cached question past the budget: %s", show(got))
	assert.Len(t, mem.Queries(), 3, "resolver below received questions")
	assert.Equal(t, 3, scan.Queries(), "Queries()")
}

// TestScanBudgetConcurrent: many concurrent distinct questions against a
// small budget: exactly budget of them are sent, the rest are refused at
// once, nothing hangs.
func TestScanBudgetConcurrent(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	const budget = 10
	scan := resolver.NewScan(client(srv), budget)
	names := make([]string, 60)
	for i := range names {
		names[i] = fmt.Sprintf("n%d.resolver.test", i)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sent, refused := 0, 0
	for _, a := range lookupAll(ctx, scan, len(names), resolver.TypeA, names...) {
		switch {
		case a.Outcome == resolver.NXDomain:
			sent++
		case a.Reason == resolver.ReasonBudgetExhausted:
			refused++
		default:
			assert.Fail(t, "unexpected answer", "%s", show(a))
		}
	}
	assert.Equal(t, budget, sent, "sent %d, refused %d; want %d and %d", sent, refused, budget, len(names)-budget)
	assert.Equal(t, len(names)-budget, refused, "sent %d, refused %d; want %d and %d", sent, refused, budget, len(names)-budget)
	assert.Len(t, srv.Queries(), budget, "server received questions")
}

// TestScanDefaultBudget: a budget <= 0 means DefaultBudget (130).
func TestScanDefaultBudget(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{0, -1} {
		mem := dnstest.NewResolver(zones(t))
		scan := resolver.NewScan(mem, budget)
		var last resolver.Answer
		for i := range resolver.DefaultBudget + 1 {
			last = scan.Lookup(t.Context(), fmt.Sprintf("n%d.resolver.test", i), resolver.TypeA)
		}
		assert.Equal(t, inconclusive(resolver.ReasonBudgetExhausted, -1), last, "answer mismatch")
		assert.Len(t, mem.Queries(), resolver.DefaultBudget, "budget %d: questions sent", budget)
	}
	assert.Equal(t, 130, resolver.DefaultBudget, "DefaultBudget")
}

// TestScanCanceled covers the ways a context can end around a Scan.
func TestScanCanceled(t *testing.T) {
	t.Parallel()
	z := zones(t)
	const name = "a.resolver.test"

	t.Run("before", func(t *testing.T) {
		t.Parallel()
		mem := dnstest.NewResolver(z)
		scan := resolver.NewScan(mem, 1)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), scan.Lookup(ctx, name, resolver.TypeA), "answer mismatch")
		// No budget was spent: the one allowed question still goes out.
		got := scan.Lookup(t.Context(), name, resolver.TypeA)
		assert.Equal(t, resolver.Found, got.Outcome, "after a canceled lookup: %s", show(got))
		assert.Len(t, mem.Queries(), 1, "questions sent")
	})

	t.Run("during", func(t *testing.T) {
		t.Parallel()
		mem := dnstest.NewResolver(z)
		mem.SetFault(name, dnstest.AnyType, dnstest.Delay(time.Hour)) // a lookup that waited for it would hang
		scan := resolver.NewScan(mem, 0)
		// The deadline passes once the question is out: a deadline by the
		// clock may pass before the Scan sends it (then it sends nothing).
		ctx := testlab.NewDeadline(t.Context())
		go endWhenAsked(mem, 1, ctx.Pass)
		assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), scan.Lookup(ctx, name, resolver.TypeA), "answer mismatch")
		log := scan.Log()
		if assert.Len(t, log, 1, "Log() = %+v, want one canceled query", log) {
			assert.Equal(t, resolver.ReasonCanceled, log[0].Reason, "Log() = %+v, want one canceled query", log)
		}
	})

	t.Run("waiter-gives-up", func(t *testing.T) {
		t.Parallel()
		mem := dnstest.NewResolver(z)
		held := newHeld(mem) // the answer lands when the test says, not after a delay
		scan := resolver.NewScan(held, 0)
		owner := make(chan resolver.Answer)
		go func() { owner <- scan.Lookup(t.Context(), name, resolver.TypeA) }()
		waitFor(t, func() bool { return held.asked.Load() == 1 })
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), scan.Lookup(ctx, name, resolver.TypeA), "answer mismatch")
		close(held.release)
		got := <-owner
		assert.Equal(t, resolver.Found, got.Outcome, "owner: %s", show(got))
		assert.Len(t, mem.Queries(), 1, "questions sent")
	})

	t.Run("sender-gives-up", func(t *testing.T) {
		t.Parallel()
		// The caller that sent the question is canceled while another
		// caller, with a live context, waits on it: the waiter asks again
		// and gets the real answer.
		mem := dnstest.NewResolver(z)
		held := newHeld(mem) // the answer lands when the test says, not after a delay
		scan := resolver.NewScan(held, 0)
		ctx, cancel := context.WithCancel(t.Context())
		sender := make(chan resolver.Answer)
		go func() { sender <- scan.Lookup(ctx, name, resolver.TypeA) }()
		waitFor(t, func() bool { return held.asked.Load() == 1 })
		waiter := make(chan resolver.Answer)
		go func() { waiter <- scan.Lookup(t.Context(), name, resolver.TypeA) }()
		// Usually the waiter joins by then; a waiter that comes after the
		// canceled answer asks again all the same, with the same log.
		time.Sleep(20 * time.Millisecond)
		cancel()
		assert.Equal(t, inconclusive(resolver.ReasonCanceled, -1), <-sender, "answer mismatch")
		close(held.release)
		got := <-waiter
		assert.Equal(t, resolver.Found, got.Outcome, "waiter: %s", show(got))
		log := scan.Log()
		if assert.Len(t, log, 2, "Log() = %+v, want a canceled query then a found one", log) {
			assert.Equal(t, resolver.ReasonCanceled, log[0].Reason, "Log() = %+v, want a canceled query then a found one", log)
			assert.Equal(t, resolver.Found, log[1].Outcome, "Log() = %+v, want a canceled query then a found one", log)
		}
	})

	t.Run("canceled-spends-budget", func(t *testing.T) {
		t.Parallel()
		mem := dnstest.NewResolver(z)
		mem.SetFault(name, dnstest.AnyType, dnstest.Delay(time.Hour))
		scan := resolver.NewScan(mem, 1)
		// Canceled once the question is out: a context that ends before
		// the Scan sends it spends nothing ("before").
		ctx, cancel := context.WithCancel(t.Context())
		go endWhenAsked(mem, 1, cancel)
		scan.Lookup(ctx, name, resolver.TypeA)
		assert.Equal(t, inconclusive(resolver.ReasonBudgetExhausted, -1), scan.Lookup(t.Context(), "aaaa.resolver.test", resolver.TypeAAAA), "answer mismatch")
	})
}

// heldResolver is next with each lookup held until release is closed
// (or the lookup's context ends); asked counts the lookups that came.
type heldResolver struct {
	next    resolver.Resolver
	asked   atomic.Int32
	release chan struct{}
}

func newHeld(next resolver.Resolver) *heldResolver {
	return &heldResolver{next: next, release: make(chan struct{})}
}

func (h *heldResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	h.asked.Add(1)
	select {
	case <-h.release:
		return h.next.Lookup(ctx, name, qtype)
	case <-ctx.Done():
		return resolver.Fail(resolver.ReasonCanceled)
	}
}

// endWhenAsked calls end once mem has been asked n questions (run it in
// a goroutine of its own: it may not call require).
func endWhenAsked(mem *dnstest.Resolver, n int, end func()) {
	for len(mem.Queries()) < n {
		time.Sleep(time.Millisecond)
	}
	end()
}

// waitFor polls cond for up to 30 seconds (long enough for a loaded
// machine; it decides no verdict by time).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			require.FailNow(t, "condition not reached")
		}
	}
}

func TestScanLog(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zones(t))
	srv.SetFault("nodata.resolver.test", dnstest.AnyType, dnstest.Refused)
	scan := resolver.NewScan(client(srv), 0)
	before := time.Now()
	scan.Lookup(t.Context(), "A.Resolver.Test.", resolver.TypeA)
	scan.Lookup(t.Context(), "nodata.resolver.test", resolver.TypeTXT)
	scan.Lookup(t.Context(), "a.resolver.test", resolver.TypeA)
	log := scan.Log()
	type entry struct {
		Name    string
		Type    resolver.Type
		Outcome resolver.Outcome
		Reason  resolver.Reason
	}
	want := []entry{
		{"a.resolver.test", resolver.TypeA, resolver.Found, ""},
		{"nodata.resolver.test", resolver.TypeTXT, resolver.Inconclusive, resolver.ReasonRefused},
	}
	require.Len(t, log, len(want), "Log() = %+v", log)
	for i, q := range log {
		assert.Equal(t, want[i], entry{q.Name, q.Type, q.Outcome, q.Reason}, "log[%d]", i)
		assert.False(t, q.Start.Before(before), "log[%d]: start %v, end %v", i, q.Start, q.End)
		assert.False(t, q.End.Before(q.Start), "log[%d]: start %v, end %v", i, q.Start, q.End)
	}
	log[0].Name = "changed"
	assert.Equal(t, "a.resolver.test", scan.Log()[0].Name, "Log() returned the Scan's own slice")
}

// TestFunc: the adapter passes its arguments through.
func TestFunc(t *testing.T) {
	t.Parallel()
	var r resolver.Resolver = resolver.Func(func(_ context.Context, name string, qtype resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, CNAMEs: []string{name + "/" + qtype.String()}}
	})
	got := r.Lookup(t.Context(), "x.test", resolver.TypeMX)
	assert.Equal(t, "x.test/MX", got.CNAMEs[0], "got %q", got.CNAMEs)
}

// TestScanByteBound: answers are kept until MaxScanBytes; an answer that
// would pass it is Inconclusive with ReasonBudgetExhausted, so a hostile
// zone of huge TXT records cannot make one scan hold more.
func TestScanByteBound(t *testing.T) {
	t.Parallel()
	big := make([]string, 250) // 250 strings of 255 bytes: about 64 KiB per answer
	for i := range big {
		big[i] = fmt.Sprintf("%0255d", i)
	}
	next := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: resolver.TypeTXT, TXT: big}}}
	})
	s := resolver.NewScan(next, 0)
	kept, refused := 0, 0
	for i := range resolver.DefaultBudget {
		a := s.Lookup(context.Background(), fmt.Sprintf("n%d.hostile.test", i), resolver.TypeTXT)
		switch {
		case a.Outcome == resolver.Found:
			kept++
		case a.Reason == resolver.ReasonBudgetExhausted:
			refused++
		default:
			require.FailNow(t, "unexpected answer", "answer %d: %+v", i, a.Outcome)
		}
	}
	msg := []any{"kept %d answers (%d bytes), refused %d; bound %d", kept, s.Bytes(), refused, resolver.MaxScanBytes}
	require.LessOrEqual(t, s.Bytes(), resolver.MaxScanBytes, msg...)
	require.NotZero(t, kept, msg...)
	require.NotZero(t, refused, msg...)
	require.LessOrEqual(t, kept, resolver.MaxScanBytes/(64<<10), msg...)
	small := resolver.NewScan(resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: resolver.TypeTXT, TXT: []string{"v=spf1 -all"}}}}
	}), 0)
	for i := range resolver.DefaultBudget {
		a := small.Lookup(context.Background(), fmt.Sprintf("n%d.fine.test", i), resolver.TypeTXT)
		require.Equal(t, resolver.Found, a.Outcome, "ordinary answer %d refused: %+v", i, a)
	}
}
