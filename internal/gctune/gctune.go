// Package gctune holds the garbage-collector settings of the service
// (`mailauth serve`, and the bench's service process, which must run with
// the same ones to measure the same thing).
//
// The service's live heap is small and bounded (tens of MB under attack,
// about 1 MB per scan in flight), but hostile traffic allocates fast: with
// Go's default GOGC of 100 the collector then runs several times a second,
// and on a two-core machine its background worker takes one core while it
// runs. Measured with scripts/abuse, that made the well-behaved client's
// p99 9 to 24 times its unloaded p99; with 400 it stayed within 1.05 to 1.4
// times, for a larger peak heap. The soft memory limit keeps that trade
// bounded: near it the collector runs as often as it must (in a run of
// 64 concurrent scans of a hostile zone, RSS peaked at 258 MB with it,
// 338 MB without it, 179 MB with the default GOGC; RELIABILITY.md and
// CHANGELOG.md).
package gctune

import (
	"os"
	"runtime/debug"
)

const (
	// ServiceGCPercent is the service's GOGC: the heap may grow to five
	// times the live heap between collections (see the package doc).
	ServiceGCPercent = 400
	// ServiceMemoryLimit is the service's soft memory limit in bytes
	// (GOMEMLIMIT): it bounds what ServiceGCPercent trades for fewer
	// collections. It allows for a DNS cache shared across scans of up to
	// CacheAllowance; Apply raises it by the excess of a larger one, which
	// stays live for minutes: under a limit the cache filled (`mailauth
	// serve -dns-cache-mb` goes up to 4 GiB) the collector would run
	// without pause.
	ServiceMemoryLimit = 256 << 20
	// CacheAllowance is the shared DNS cache ServiceMemoryLimit was
	// measured with: the default of `mailauth serve -dns-cache-mb` and
	// the bench's service process (BENCHMARKS.md, memory phase).
	CacheAllowance = 32 << 20
)

// Settings are the collector's settings in effect.
type Settings struct {
	GCPercent   int   // GOGC; negative means the collector is off
	MemoryLimit int64 // soft memory limit in bytes; math.MaxInt64 means none
	FromEnv     bool  // GOGC or GOMEMLIMIT was set and kept
}

// Apply sets ServiceGCPercent and a soft memory limit of
// ServiceMemoryLimit, raised by what cacheBytes (the bound of the DNS
// cache shared across scans, 0 without one) exceeds CacheAllowance by,
// except that a GOGC or GOMEMLIMIT set in the environment always wins
// (the runtime has applied it already), and returns the settings now in
// effect.
func Apply(cacheBytes int) Settings {
	var s Settings
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(ServiceGCPercent)
	} else {
		s.FromEnv = true
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ServiceMemoryLimit + int64(max(cacheBytes-CacheAllowance, 0)))
	} else {
		s.FromEnv = true
	}
	s.GCPercent = debug.SetGCPercent(-1)
	debug.SetGCPercent(s.GCPercent)
	s.MemoryLimit = debug.SetMemoryLimit(-1)
	return s
}
