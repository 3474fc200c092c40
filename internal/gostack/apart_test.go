package gostack

import (
	"errors"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deep20K calls past any stack Reserve8K gives, with or without the race
// detector.
//
//go:noinline
func deep20K(i int) byte {
	var buf [20 << 10]byte
	return buf[i]
}

// TestApartKeepsCallerStack: deep work run Apart grows another
// goroutine's stack, not the caller's; the same work run in place grows
// the caller's (the control: Where sees a move). The caller has 8 KiB,
// as a request's goroutine has, for Apart's own calls.
func TestApartKeepsCallerStack(t *testing.T) {
	// No collection may shrink a stack while a goroutine runs.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	apart := func() { Apart(func() { deep20K(0) }) }
	inPlace := func() { deep20K(0) }
	for name, c := range map[string]struct {
		run   func()
		moves bool
	}{"apart": {apart, false}, "in place": {inPlace, true}} {
		out := make(chan bool)
		go func() {
			Reserve8K() // room for Apart's own frames, a goroutine's start included
			before := Where()
			c.run()
			out <- Where() != before
		}()
		assert.Equal(t, c.moves, <-out, "%s: the caller's stack moved", name)
	}
}

// TestApartReturns: what f wrote is there when Apart returns, and f ran
// on another goroutine than the caller.
func TestApartReturns(t *testing.T) {
	var got int
	var where uintptr
	here := Where()
	Apart(func() {
		got = 42
		where = Where()
	})
	assert.Equal(t, 42, got)
	assert.NotEqual(t, here, where, "f ran on the caller's stack")
}

// TestApartPanics: a panic in f is raised again in the caller, with the
// same value; panic(nil) arrives as the runtime's *PanicNilError.
func TestApartPanics(t *testing.T) {
	sentinel := errors.New("abort")
	for name, c := range map[string]struct {
		value any
		check func(t *testing.T, got any)
	}{
		"error":  {sentinel, func(t *testing.T, got any) { assert.Same(t, sentinel, got) }},
		"string": {"boom", func(t *testing.T, got any) { assert.Equal(t, "boom", got) }},
		"nil": {nil, func(t *testing.T, got any) {
			var pne *runtime.PanicNilError
			assert.ErrorAs(t, got.(error), &pne)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			got := func() (v any) {
				defer func() { v = recover() }()
				Apart(func() { panic(c.value) })
				return "Apart returned"
			}()
			c.check(t, got)
		})
	}
}

// TestApartGoexit: f calling runtime.Goexit ends the caller's goroutine
// too, running its deferred calls, and nothing after Apart.
func TestApartGoexit(t *testing.T) {
	after := false
	deferred := make(chan struct{})
	go func() {
		defer close(deferred)
		Apart(runtime.Goexit)
		after = true
	}()
	<-deferred
	require.False(t, after, "the caller went on after f's Goexit")
}
