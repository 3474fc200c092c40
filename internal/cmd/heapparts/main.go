// Command heapparts says, part by part, what a heap profile holds beyond
// another: which parts of the service (the DNS client, the scan's
// resolver, the checks, the leak guard, the HTTP server...) the bytes of
// the requests in flight are in. The bench's memory phase writes the two
// profiles (`-service-memprofile F`: F under load, F.bare.prof once the
// load has ended and the shared DNS cache was purged) and prints this
// command with the figures of its run:
//
//	go run ./internal/cmd/heapparts -n 500 -off 18300000 -base F.bare.prof F
//
// Each sample of in-use bytes goes to the first part, from the frame
// that allocated it up its stack, whose pattern a frame matches; a
// sample no part matches is "other". -n divides every figure (the
// requests in flight); -off is taken off the total (the answers the
// shared cache held at the snapshot, which are not the requests').
//
// It reads the profiles with `go tool pprof -traces`, so it needs the
// go command; it never runs anything else.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	base := flag.String("base", "", "the heap profile to take off (the idle service's)")
	n := flag.Float64("n", 1, "divide every figure by this (the requests in flight)")
	off := flag.Float64("off", 0, "bytes to take off the total (the shared cache's answers at the snapshot)")
	flag.Parse()
	if flag.NArg() != 1 || *n <= 0 {
		fmt.Fprintln(os.Stderr, "usage: heapparts [-base IDLE] [-n REQUESTS] [-off BYTES] PROFILE")
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *base, *n, *off); err != nil {
		fmt.Fprintln(os.Stderr, "heapparts:", err)
		os.Exit(1)
	}
}
