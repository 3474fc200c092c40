package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
)

// TestScannerSharedCache: with Config.DNSCacheBytes, a second scan of
// the same domain is answered from the cache shared across scans (no
// question reaches the server again), gives the same result, and the
// hit counters say so. Without it, the second scan asks again. After
// PurgeDNSCache, a scan asks every question again.
func TestScannerSharedCache(t *testing.T) {
	for _, size := range []int{0, 1 << 20} {
		lab := testlab.Start(t, []string{scanZone}, policies)
		s := New(Config{
			Resolver: lab.DNS.Client(30 * time.Second), HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
			AllowLoopbackTargets: true, Now: func() time.Time { return fixedNow }, DNSCacheBytes: size,
		})
		req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
		_, known := s.ResolverProperties(context.Background()) // the probe is no scan's question
		require.True(t, known)
		probed := len(lab.DNS.Queries())
		first, err := s.Scan(context.Background(), req)
		require.NoError(t, err)
		sent := len(lab.DNS.Queries()) - probed
		second, err := s.Scan(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, first, second, "size %d: the second scan differs from the first", size)
		again := len(lab.DNS.Queries()) - sent - probed
		st := s.DNSCacheStats()
		switch {
		case size == 0:
			assert.Equal(t, sent, again, "no cache: %d questions the first time, %d the second; stats %+v", sent, again, st)
			assert.Equal(t, resolver.CacheStats{}, st, "no cache: %d questions the first time, %d the second; stats %+v", sent, again, st)
		case size > 0:
			assert.Equal(t, 0, again, "cache: %d questions the first time, %d the second; stats %+v", sent, again, st)
			assert.Equal(t, uint64(sent), st.Hits, "cache: %d questions the first time, %d the second; stats %+v", sent, again, st)
			assert.Equal(t, uint64(sent), st.Misses, "cache: %d questions the first time, %d the second; stats %+v", sent, again, st)
		}
		// A purge drops what the scans left: the next scan asks again.
		held := st.Entries
		assert.Equal(t, held, s.PurgeDNSCache(), "size %d: the answers purged", size)
		assert.Zero(t, s.DNSCacheStats().Entries, "size %d: answers held after the purge", size)
		before := len(lab.DNS.Queries())
		third, err := s.Scan(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, first, third, "size %d: the scan after the purge differs from the first", size)
		assert.Equal(t, sent, len(lab.DNS.Queries())-before, "size %d: questions the scan after the purge asked", size)
	}
}
