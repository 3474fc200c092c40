// Package gostack grows the calling goroutine's stack once, at its
// start, to the size its work will reach anyway.
//
// A goroutine starts with the runtime's average stack size (2–4 KiB in
// the service) and the runtime doubles its stack by copying when a call
// needs more room: every frame on it is walked and moved. A check's
// goroutine that goes down through a protocol package, the leak guard's
// recorder, the shared cache and the DNS client (or the TLS handshake
// of the MTA-STS fetch) reaches 8 or 16 KiB, so it paid one or two
// copies of a deep stack under a lookup. Grown here, while the stack
// holds one or two frames, it pays one copy of almost nothing.
//
// The frames asked for are never written: the array in them is declared
// in a branch that is not taken, so the function's frame (and the check
// of its prologue that grows the stack) has its size but nothing zeroes
// it. The sizes are what the runtime rounds them up to with its stack
// guard: a 6 KiB frame makes an 8 KiB stack, a 12 KiB frame a 16 KiB
// one. A stack that later uses
// a quarter of its size or less at a collection is shrunk by the
// runtime as usual.
package gostack

// Frames asked for by Reserve8K and Reserve16K.
const (
	frame8K  = 6 << 10
	frame16K = 12 << 10
)

// Reserve8K makes the calling goroutine's stack at least 8 KiB: room for
// a lookup through the resolver's layers and the leak guard (about 5.5
// KiB at the deepest).
func Reserve8K() { _ = reserve8K(0) }

// Reserve16K makes the calling goroutine's stack at least 16 KiB: room
// for a check that goes deeper than one lookup (the MTA-STS fetch's TLS
// handshake, the DMARC walk, the SPF record, a DKIM key's parse).
func Reserve16K() { _ = reserve16K(0) }

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

// reserve16K's frame holds frame16K bytes (see reserve8K).
//
//go:noinline
func reserve16K(i int) byte {
	if i != 0 {
		var buf [frame16K]byte
		return buf[i%frame16K]
	}
	return 0
}
