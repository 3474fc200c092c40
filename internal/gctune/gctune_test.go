package gctune

import (
	"runtime/debug"
	"testing"
)

// TestApply: without GOGC and GOMEMLIMIT the service's settings take
// effect, the limit raised by a large DNS cache; with them, the
// environment's values stay.
func TestApply(t *testing.T) {
	keep := debug.SetGCPercent(-1)
	debug.SetGCPercent(keep)
	keepLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(keep)
		debug.SetMemoryLimit(keepLimit)
	})

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	s := Apply(0)
	if s.GCPercent != ServiceGCPercent || s.MemoryLimit != ServiceMemoryLimit || s.FromEnv {
		t.Fatalf("without environment: %+v, want GOGC %d, limit %d", s, ServiceGCPercent, ServiceMemoryLimit)
	}
	// A DNS cache shared across scans larger than the allowance raises
	// the limit by the excess.
	if s = Apply(CacheAllowance); s.MemoryLimit != ServiceMemoryLimit {
		t.Fatalf("with the default cache: limit %d, want %d", s.MemoryLimit, ServiceMemoryLimit)
	}
	if s = Apply(1 << 30); s.MemoryLimit != ServiceMemoryLimit+1<<30-CacheAllowance {
		t.Fatalf("with a 1 GiB cache: limit %d, want %d", s.MemoryLimit, ServiceMemoryLimit+1<<30-CacheAllowance)
	}

	// The runtime reads GOGC and GOMEMLIMIT only at start-up; set what it
	// would have set, as an operator's environment does.
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	s = Apply(1 << 30)
	if s.GCPercent != 150 || s.MemoryLimit != 1<<30 || !s.FromEnv {
		t.Fatalf("with environment: %+v, want GOGC 150 and limit 1 GiB kept", s)
	}
}
