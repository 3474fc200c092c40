//go:build race

package mailauth

// raceEnabled reports whether the race detector is on.
const raceEnabled = true
