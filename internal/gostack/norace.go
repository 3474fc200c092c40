//go:build !race

package gostack

// RaceEnabled reports whether the race detector is on: it doubles the
// runtime's stack guard, so the same frames take a larger stack (tests
// that measure stacks read it).
const RaceEnabled = false
