package main

import (
	"os"
	"runtime/debug"
)

// Garbage-collector settings of `mailauth serve` (RELIABILITY.md). The
// service's live heap is small and bounded (tens of MB under attack, about
// 1 MB per scan in flight), but hostile traffic allocates fast: with Go's
// default GOGC of 100 the collector then runs several times a second, and
// on a two-core machine its background worker takes one core while it
// runs. Measured with scripts/abuse, that made the well-behaved client's
// p99 9 to 24 times its unloaded p99; with 400 it stayed within 1.05 to
// 1.4 times, for a larger peak heap. The soft memory limit keeps that
// trade bounded: near it the collector runs as often as it must (64
// concurrent scans of a hostile zone peaked at 258 MB RSS with it, 338 MB
// without it, 179 MB with the default GOGC; RELIABILITY.md).
const (
	serveGCPercent  = 400
	serveMemLimitMB = 256
)

// tuneGC applies the settings above unless the operator set GOGC or
// GOMEMLIMIT, which always win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemLimitMB << 20)
	}
}
