package mailauth

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
)

// wireLog records every question that reaches the resolver below the
// scanner's per-scan cache, with its start and end.
type wireLog struct {
	mu      sync.Mutex
	next    resolver.Resolver
	delay   time.Duration
	entries []wireEntry
	// The first hold questions wait, before the delay, until all of them
	// are in flight: the wave overlaps because the scan asked them at
	// once, not because the machine started them within one delay.
	hold    int
	arrived int
	full    chan struct{} // closed when hold questions have arrived
}

type wireEntry struct {
	name       string
	qtype      resolver.Type
	start, end time.Time
}

func (w *wireLog) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	start := time.Now()
	w.mu.Lock()
	var wave chan struct{}
	if w.arrived < w.hold {
		w.arrived++
		wave = w.full
		if w.arrived == w.hold {
			close(w.full)
		}
	}
	w.mu.Unlock()
	if wave != nil {
		select {
		case <-wave:
		case <-ctx.Done(): // a scan that asks one question at a time ends at its deadline
		}
	}
	select {
	case <-time.After(w.delay):
	case <-ctx.Done():
	}
	a := w.next.Lookup(ctx, name, qtype)
	w.mu.Lock()
	w.entries = append(w.entries, wireEntry{resolver.CanonicalName(name), qtype, start, time.Now()})
	w.mu.Unlock()
	return a
}

// TestScanConcurrency runs a full scan with 50 ms added to every DNS
// question and proves from the wire log that independent questions
// overlap and that no question is asked twice.
func TestScanConcurrency(t *testing.T) {
	lab := testlab.Start(t, []string{scanZone}, policies)
	const wave = 6                                                                                                                // independent questions the first wave asks at once, at least
	wire := &wireLog{next: lab.DNS.Client(30 * time.Second), delay: 50 * time.Millisecond, hold: wave, full: make(chan struct{})} // a bound on a hang, not on speed
	s := New(Config{
		Resolver: wire, HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
		AllowLoopbackTargets: true, Now: func() time.Time { return fixedNow },
	})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"})
	require.NoError(t, err)
	require.Equal(t, GradeA, got.Grade, "grade %s: the delayed scan should still see a correct domain", got.Grade)
	wire.mu.Lock()
	defer wire.mu.Unlock()
	distinct := map[[2]any]int{}
	for _, e := range wire.entries {
		distinct[[2]any{e.name, e.qtype}]++
	}
	for q, n := range distinct {
		assert.LessOrEqual(t, n, 1, "question %v went to the wire %d times", q, n)
	}
	assert.Len(t, wire.entries, len(distinct), "%d questions on the wire for %d distinct questions", len(wire.entries), len(distinct))
	// The first wave: every check starts at once, so at least the
	// questions that need no earlier answer overlap.
	peak := peakInFlight(wire.entries)
	assert.GreaterOrEqual(t, peak, wave, "at most %d questions were in flight at once; independent checks must overlap", peak)
	t.Logf("%d distinct questions, peak %d in flight", len(distinct), peakInFlight(wire.entries))
}

// peakInFlight returns the largest number of intervals that overlap.
func peakInFlight(entries []wireEntry) int {
	peak := 0
	for _, a := range entries {
		n := 0
		for _, b := range entries {
			if !b.start.After(a.start) && b.end.After(a.start) {
				n++
			}
		}
		peak = max(peak, n)
	}
	return peak
}
