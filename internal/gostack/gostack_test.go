package gostack

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// deep5K stands for a lookup's deepest calls, deep10K for deeper ones.
//
//go:noinline
func deep5K(i int) byte {
	var buf [5 << 10]byte
	return buf[i]
}

// deep10K: see deep5K.
//
//go:noinline
func deep10K(i int) byte {
	var buf [10 << 10]byte
	return buf[i]
}

// underFrame512 calls Reserve8K from under a frame of about 512 bytes,
// as a check's goroutine calls it from under its own frames.
//
//go:noinline
func underFrame512(i int) byte {
	var buf [512]byte
	buf[i] = 1
	Reserve8K()
	return buf[i]
}

// moved runs reserve (nil: none) and then deep on a new goroutine, and
// reports whether the goroutine's stack was copied (grown) under deep,
// by Where: the controls below (a move and none) test Where too.
func moved(reserve func(), deep func(int) byte) bool {
	out := make(chan bool)
	go func() {
		if reserve != nil {
			reserve()
		}
		before := Where()
		deep(0)
		out <- Where() != before
	}()
	return <-out
}

func TestReserve(t *testing.T) {
	// No collection may shrink a stack while a goroutine runs.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cases := []struct {
		name    string
		reserve func()
		deep    func(int) byte
		moves   bool
	}{
		// The controls: a new goroutine's stack is smaller than 8 KiB
		// (the runtime's average, with few goroutines), so it grows
		// under the deep call.
		{name: "none-5K", deep: deep5K, moves: true},
		{name: "8K-5K", reserve: Reserve8K, deep: deep5K},
		// 8 KiB is not more: a deeper call grows the stack again.
		{name: "8K-10K", reserve: Reserve8K, deep: deep10K, moves: true},
		// A check's goroutine calls Reserve8K under its own frames
		// (about 0.6 KiB): a caller's 512 bytes still give 8 KiB, room
		// for the 5 KiB below ...
		{name: "8K-under-512-caller", reserve: func() { underFrame512(0) }, deep: deep5K},
		// ... and not more: 8 KiB, not 16 (a caller of 1 KiB gets 16).
		// The race detector doubles the stack guard, and the same
		// reservation then gives 16 KiB, which holds the 10 KiB call.
		{name: "8K-under-512-caller-10K", reserve: func() { underFrame512(0) }, deep: deep10K, moves: !RaceEnabled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.moves, moved(tc.reserve, tc.deep))
		})
	}
}
