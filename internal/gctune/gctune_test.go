package gctune

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
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
	require.Equal(t, ServiceGCPercent, s.GCPercent, "without environment: %+v, want GOGC %d, limit %d", s, ServiceGCPercent, ServiceMemoryLimit)
	require.Equal(t, int64(ServiceMemoryLimit), s.MemoryLimit, "without environment: %+v, want GOGC %d, limit %d", s, ServiceGCPercent, ServiceMemoryLimit)
	require.False(t, s.FromEnv, "without environment: %+v, want GOGC %d, limit %d", s, ServiceGCPercent, ServiceMemoryLimit)
	// A DNS cache shared across scans larger than the allowance raises
	// the limit by the excess.
	s = Apply(CacheAllowance)
	require.Equal(t, int64(ServiceMemoryLimit), s.MemoryLimit, "with the default cache: limit")
	s = Apply(1 << 30)
	require.Equal(t, int64(ServiceMemoryLimit+1<<30-CacheAllowance), s.MemoryLimit, "with a 1 GiB cache: limit")

	// The runtime reads GOGC and GOMEMLIMIT only at start-up; set what it
	// would have set, as an operator's environment does.
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	s = Apply(1 << 30)
	require.Equal(t, 150, s.GCPercent, "with environment: %+v, want GOGC 150 and limit 1 GiB kept", s)
	require.Equal(t, int64(1<<30), s.MemoryLimit, "with environment: %+v, want GOGC 150 and limit 1 GiB kept", s)
	require.True(t, s.FromEnv, "with environment: %+v, want GOGC 150 and limit 1 GiB kept", s)
}
