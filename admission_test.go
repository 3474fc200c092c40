package mailauth

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// gateResolver answers NXDOMAIN to every question once gate is closed,
// and records the scanned domains (dN.example.com) whose questions arrived.
type gateResolver struct {
	gate chan struct{}

	mu      sync.Mutex
	domains map[string]bool
}

func (g *gateResolver) Lookup(ctx context.Context, name string, _ resolver.Type) resolver.Answer {
	labels := strings.Split(resolver.CanonicalName(name), ".")
	if l := len(labels); l >= 3 && labels[l-1] == "com" && strings.TrimLeft(labels[l-3], "d0123456789") == "" {
		g.mu.Lock()
		g.domains[labels[len(labels)-3]] = true
		g.mu.Unlock()
	}
	select {
	case <-g.gate:
		return resolver.Answer{Outcome: resolver.NXDomain}
	case <-ctx.Done():
		return resolver.Fail(resolver.ReasonCanceled)
	}
}

func (g *gateResolver) started() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.domains)
}

// startScans starts n scans of d0.example.com ... and returns their errors once
// all have returned.
func startScans(s *Scanner, ctx context.Context, n int) func() []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.Scan(ctx, ScanRequest{Domain: fmt.Sprintf("d%d.example.com", i)})
		})
	}
	return func() []error { wg.Wait(); return errs }
}

// TestMaxConcurrentScans: with a bound of 2, five scans whose DNS never
// answers leave three waiting, having asked nothing; when the DNS
// answers, every scan finishes. synctest.Wait returns when every
// goroutine is blocked, so nothing here depends on timing.
func TestMaxConcurrentScans(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &gateResolver{gate: make(chan struct{}), domains: map[string]bool{}}
		s := New(Config{Resolver: g, MaxConcurrentScans: 2})
		wait := startScans(s, t.Context(), 5)
		synctest.Wait()
		assert.Equal(t, 2, g.started(), "scans past the bound must not start")
		running, bound := s.ScansRunning()
		assert.Equal(t, 2, running)
		assert.Equal(t, 2, bound)
		close(g.gate)
		for _, err := range wait() {
			assert.NoError(t, err)
		}
		assert.Equal(t, 5, g.started())
		running, _ = s.ScansRunning()
		assert.Zero(t, running, "every slot is given back")
	})
}

// TestMaxConcurrentScansUnbounded: a negative bound admits every scan at
// once; zero is the default bound.
func TestMaxConcurrentScansUnbounded(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &gateResolver{gate: make(chan struct{}), domains: map[string]bool{}}
		s := New(Config{Resolver: g, MaxConcurrentScans: -1})
		wait := startScans(s, t.Context(), 5)
		synctest.Wait()
		assert.Equal(t, 5, g.started())
		close(g.gate)
		wait()
	})
	_, bound := New(Config{}).ScansRunning()
	assert.Equal(t, DefaultMaxConcurrentScans(), bound)
	assert.GreaterOrEqual(t, bound, 64)
}

// TestMaxConcurrentScansWaitEndsWithContext: a scan waiting for a slot
// returns its context's error when the context ends, without asking the
// DNS anything, and the running scan is not disturbed.
func TestMaxConcurrentScansWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &gateResolver{gate: make(chan struct{}), domains: map[string]bool{}}
		s := New(Config{Resolver: g, MaxConcurrentScans: 1})
		first := startScans(s, t.Context(), 1)
		synctest.Wait()
		require.Equal(t, 1, g.started())
		ctx, cancel := context.WithCancel(t.Context())
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err = s.Scan(ctx, ScanRequest{Domain: "d9.example.com"})
		}()
		synctest.Wait()
		cancel()
		<-done
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1, g.started(), "the waiting scan asked nothing")
		_, err = s.CheckIP(ctx, netip.MustParseAddr("8.8.8.8"))
		assert.ErrorIs(t, err, context.Canceled, "CheckIP honours an ended context before it waits")
		close(g.gate)
		assert.NoError(t, first()[0])
	})
}
