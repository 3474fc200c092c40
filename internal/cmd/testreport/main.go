// Command testreport reads the output of `go test -json` on its standard
// input and writes what a reader of `go test` wants to see: each
// package's result line, the whole output of every test that failed (and
// of a package that did not build), and at the end the slowest tests. It
// exits 1 when a test or a package failed, so that scripts/test fails
// with it:
//
//	go test -json ./... | go run ./internal/cmd/testreport -slowest 10
//
// It reads only the test2json stream; it never runs anything.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	slowest := flag.Int("slowest", 10, "how many of the slowest tests to list at the end (0: none)")
	flag.Parse()
	r, err := report(os.Stdin, os.Stdout, *slowest)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if r.failed {
		os.Exit(1)
	}
}

// result is what report found in the stream.
type result struct {
	failed bool // a test or a package failed
}

// write writes s to w; a failing writer is the reader's problem, not the
// report's verdict.
func write(w io.Writer, s string) { _, _ = io.WriteString(w, s) }
