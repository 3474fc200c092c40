// Command profparts says, part by part, what a heap or CPU profile of
// the service holds (beyond another, for a heap profile): which parts of
// the service (the DNS client, the scan's resolver, the checks, the leak
// guard, the HTTP server, the collector...) the bytes of the requests in
// flight are in, or the CPU of the scans went to. The bench writes the
// profiles and prints the command with its run's figures:
//
//	# the memory phase (-service-memprofile F): F under load, F.bare.prof
//	# once the load ended and the shared DNS cache was purged
//	go run ./internal/cmd/profparts -n 500 -off 18300000 -base F.bare.prof F
//	# a load phase (-service-cpuprofile F): its scans' CPU
//	go run ./internal/cmd/profparts -n 4630 F-D0s-100c.prof
//
// Each sample goes to the first part, from the frame at its top (the one
// that allocated, or that was on the CPU) down its stack, whose pattern
// a frame matches; a sample no part matches is "other". -n divides every
// figure (the requests in flight, the scans answered); -off is taken off
// the total (the answers the shared cache held at the snapshot, which
// are not the requests'). Bytes are shown in KiB, CPU in ms.
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
	base := flag.String("base", "", "a heap profile to take off (the idle service's)")
	n := flag.Float64("n", 1, "divide every figure by this (the requests in flight, the scans answered)")
	off := flag.Float64("off", 0, "bytes to take off the total (the shared cache's answers at the snapshot)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: profparts [-base IDLE] [-n COUNT] [-off BYTES] PROFILE")
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *base, *n, *off); err != nil {
		fmt.Fprintln(os.Stderr, "profparts:", err)
		os.Exit(1)
	}
}
