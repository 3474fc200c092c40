package main

import (
	"log/slog"

	"github.com/mailauth/mailauth"
)

// logCacheStats logs the counters of the DNS cache shared across scans
// when the service stops: how many questions it answered without the
// wire. Only counts are logged.
func logCacheStats(logger *slog.Logger, s *mailauth.Scanner) {
	st := s.DNSCacheStats()
	if st.Hits+st.Shared+st.Misses == 0 {
		return
	}
	logger.Info("dns cache",
		slog.Uint64("hits", st.Hits), slog.Uint64("shared", st.Shared), slog.Uint64("misses", st.Misses),
		slog.Uint64("evictions", st.Evictions), slog.Int("entries", st.Entries), slog.Int("bytes", st.Bytes),
		slog.Float64("hitRate", st.HitRate()))
}
