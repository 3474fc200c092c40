//go:build !unix

package resolver_test

import "time"

// processCPU is 0 where getrusage is not available (Windows): the
// benchmarks' CPU figures then read 0.
func processCPU() time.Duration { return 0 }
