package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
)

// onHeap calls check (a protocol package's Check) with ctx, dns and arg
// and returns its result on the heap; judgeAt judges such a result and
// returns the verdict on the heap. Neither is inlined, so that the frame
// of a check's goroutine, under which the check's lookups wait, holds
// neither the check's result (a protocol package's Result, some hundreds
// of bytes), nor the copy a judge takes of it, nor room for the verdict:
// only onHeap's frame, for as long as check runs, has room for the
// result. A goroutine whose deepest lookup stays under
// 8 KiB keeps an 8 KiB stack, and every lookup of a scan in flight waits
// on top of these frames. check is a function value, not a closure: a
// closure would return the result into onHeap's frame after holding it
// in its own (the MTA-STS check, which builds its options first, keeps
// its own wrapper for that reason: mtastsCheck).
//
// No unit test guards these frames: a goroutine's stack size is not
// observable per goroutine, and whether a chain of frames crosses the
// 8 KiB line depends on the toolchain, on -race (which doubles the
// runtime's stack guard) and on the resolver the lookups wait in, so a
// test would either pass whatever the frames or fail on a toolchain
// upgrade. What measures it is BenchmarkScansInFlight's stack-B/scan
// (the real UDP client, 500 scans in flight, BENCHMARKS.md); each
// function's frame (locals=) is in the output of
// `go build -gcflags='github.com/mailauth/mailauth=-S' .`.
//
//go:noinline
func onHeap[A, R any](check func(context.Context, resolver.Resolver, A) R, ctx context.Context, dns resolver.Resolver, arg A) *R {
	res := check(ctx, dns, arg)
	return &res
}

// judgeAt is judge(*res), on the heap, not inlined (see onHeap).
//
//go:noinline
func judgeAt[R any](judge func(R) verdict, res *R) *verdict {
	v := judge(*res)
	return &v
}
