// Package gostack sizes goroutines' stacks: Reserve8K grows the calling
// goroutine's stack once, at its start, to the size its work will reach
// anyway; Apart runs deep work on a goroutine of its own, so that a
// goroutine that waits long keeps a small stack.
//
// A goroutine starts with the runtime's average stack size (often 4 KiB
// in the service) and the runtime doubles its stack by copying when a
// call needs more room: every frame on it is walked and moved. A
// goroutine that goes down through a protocol package, the leak guard's
// recorder, the shared cache and the DNS client reaches 8 KiB, so it
// paid a copy of a deep stack under a lookup. Grown here, while the
// stack holds one or two frames, it pays a copy of almost nothing; a
// stack that is 8 KiB already does not move.
//
// The frame asked for is never written: its array is declared in a
// branch that is not taken, so the function's frame (and the check of
// its prologue that grows the stack) has its size but nothing zeroes
// it. A 6 KiB frame makes an 8 KiB stack once the runtime adds its
// stack guard and rounds up to a power of two. A stack that later uses
// a quarter of its size or less at a collection is shrunk by the
// runtime as usual.
package gostack

import (
	"runtime"
	"unsafe"
)

// frame8K is the frame Reserve8K asks for.
const frame8K = 6 << 10

// Reserve8K makes the calling goroutine's stack at least 8 KiB: room for
// a lookup through the resolver's layers and the leak guard, which a
// check's goroutine reaches 5.3-7.0 KB deep at its deepest (a probe that
// marked the stacks of the bench's checks measured 6.2-7.9 KB before the
// DNS client decoded its replies in place, which took 0.9 KB off).
func Reserve8K() { _ = reserve8K(0) }

// reserve8K's frame holds frame8K bytes. i is always 0, a parameter so
// that the array is not optimized away; the array is zeroed only in the
// branch that i 0 skips.
//
//go:noinline
func reserve8K(i int) byte {
	if i != 0 {
		var buf [frame8K]byte
		return buf[i%frame8K]
	}
	return 0
}

// Where returns where the calling goroutine's stack is: the address of a
// local of its own frame. Two calls from the same frame return the same
// address unless the stack was copied to grow (or shrink) in between, so
// a caller compares them to learn whether its stack moved.
//
//go:noinline
func Where() uintptr {
	var here byte
	return uintptr(unsafe.Pointer(&here))
}

// Apart runs f on a goroutine of its own and waits for it to return, so
// that the calling goroutine's stack stays as deep as it was: f's work
// grows the other goroutine's stack, which ends with f. A caller that
// then waits long (a request's goroutine, under net/http's frames and the
// middleware's, waiting for its scan) keeps a small stack: a collection
// halves a stack only while less than a quarter of it is in use (its
// guard counted), and an idle keep-alive connection's goroutine waits
// about 4 KiB deep, so a stack that grew to 16 KiB once stays 16 KiB for
// the connection's life.
//
// f's goroutine reserves 8 KiB first (Reserve8K): the work Apart is for
// goes that deep. A panic in f is raised again in the caller, with the
// same value (http.ErrAbortHandler keeps its meaning), though its trace,
// if nothing recovers it, starts at Apart, not where f panicked; f
// calling runtime.Goexit ends the caller too. (With GODEBUG=panicnil=1,
// which no build of this module sets, a panic(nil) in f recovers as nil
// and is taken for a Goexit.) Apart costs a goroutine's start and two
// switches, about a microsecond.
func Apart(f func()) {
	done := make(chan apartEnd, 1)
	go runApart(f, done)
	end := <-done
	switch {
	case end.value != nil:
		panic(end.value)
	case !end.returned:
		runtime.Goexit()
	}
}

// apartEnd is how f ended on its goroutine (see Apart).
type apartEnd struct {
	returned bool
	value    any // what f panicked with (panic(nil) recovers as a *runtime.PanicNilError); nil with returned false: f called runtime.Goexit
}

// runApart is Apart's goroutine: it runs f and sends how f ended.
func runApart(f func(), done chan<- apartEnd) {
	var end apartEnd
	defer func() {
		if !end.returned {
			end.value = recover()
		}
		done <- end
	}()
	Reserve8K()
	f()
	end.returned = true
}
