//go:build race

package gostack

// raceEnabled reports whether the race detector is on.
const raceEnabled = true
