package mailauth

import "time"

// ScanStats describes how one finished scan spent its time, for
// benchmarks and monitoring. It is never part of a response.
type ScanStats struct {
	// Wall is the scan's duration, from the request to the verified
	// result.
	Wall time.Duration
	// Bound is the scan's critical-path bound: the longest chain of
	// dependent DNS answers (plus the MTA-STS policy fetch that waited on
	// one) any check waited on, as the sum of their wire times
	// (resolver.Path gives the exact definition). Wall / Bound near 1
	// means the scan waited on little but the network.
	Bound time.Duration
	// Hops is the longest chain of dependent questions that went to the
	// wire (not answered by the shared cache), in round trips: Hops × the
	// network's round-trip time is the scan's physical limit.
	Hops int
	// Questions is the number of distinct DNS questions the scan asked
	// below its per-scan cache (each may have been answered by a shared
	// cache rather than the wire).
	Questions int
}

// stats reports the finished scan to cfg.OnStats, if set.
func (r *run) stats(start time.Time) {
	if r.cfg.OnStats == nil {
		return
	}
	bound, hops := r.criticalPath()
	r.cfg.OnStats(ScanStats{Wall: time.Since(start), Bound: bound, Hops: hops, Questions: r.dns.Queries()})
}
