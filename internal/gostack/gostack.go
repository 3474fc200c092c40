// Package gostack grows the calling goroutine's stack once, at its
// start, to the size its work will reach anyway.
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

import "unsafe"

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
