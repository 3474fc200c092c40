package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/seqscan"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestScanStats: OnStats receives one report per scan with the distinct
// questions and a critical-path bound within the wall time; a scan whose
// context is marked by seqscan (the bench's sequential baseline) gives
// the same result as the concurrent one.
func TestScanStats(t *testing.T) {
	lab := testlab.Start(t, []string{scanZone}, policies)
	z := dnstest.MustLoad(t, scanZone)
	for _, n := range z.Names() {
		lab.DNS.SetFault(n, dnstest.AnyType, dnstest.Delay(5*time.Millisecond))
	}
	var got []ScanStats
	s := New(Config{
		Resolver: lab.DNS.Client(30 * time.Second), HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
		AllowLoopbackTargets: true, Now: func() time.Time { return fixedNow },
		OnStats: func(st ScanStats) { got = append(got, st) },
	})
	req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
	concurrent, err := s.Scan(context.Background(), req)
	require.NoError(t, err)
	sequential, err := s.Scan(seqscan.With(context.Background()), req)
	require.NoError(t, err)
	assert.Equal(t, concurrent, sequential, "the sequential scan differs from the concurrent one")
	require.Len(t, got, 2, "OnStats called %d times for 2 scans", len(got))
	for i, st := range got {
		msg := "scan %d: %+v: want at least 10 questions, 0 < bound <= wall, 2 <= hops <= questions"
		assert.GreaterOrEqual(t, st.Questions, 10, msg, i, st)
		assert.Positive(t, st.Bound, msg, i, st)
		assert.LessOrEqual(t, st.Bound, st.Wall, msg, i, st)
		assert.GreaterOrEqual(t, st.Hops, 2, msg, i, st)
		assert.LessOrEqual(t, st.Hops, st.Questions, msg, i, st)
	}
	// Every question of the fixture's deepest chain (MX, then the
	// exchange's addresses, then the MTA-STS fetch) has 5 ms added, so
	// the bound holds at least two answers.
	assert.GreaterOrEqual(t, got[0].Bound, 10*time.Millisecond, "bound %v: the scan waited on at least two dependent answers of 5 ms", got[0].Bound)
}
