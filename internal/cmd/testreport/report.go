package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of the test2json stream (`go doc test2json`).
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64 // seconds
	Output     string
	ImportPath string // build events
}

// key names one test of one package ("" Test: the package itself).
type key struct{ pkg, test string }

// timing is the time one top-level test took.
type timing struct {
	key
	seconds float64
	failed  bool
}

// report copies the readable part of the stream in to out (see the
// command's doc) and lists the slowest top-level tests. A line that is
// not JSON (a message of the go command) is copied as it is.
func report(in io.Reader, out io.Writer, slowest int) (result, error) {
	var res result
	buffered := map[key][]string{} // output of top-level tests still running, their subtests' included
	build := map[string][]string{} // build output by import path
	var times []timing
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			write(out, string(line)+"\n")
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			build[e.ImportPath] = append(build[e.ImportPath], e.Output)
		case "build-fail":
			res.failed = true
			write(out, strings.Join(build[e.ImportPath], ""))
		case "output":
			if e.Test == "" {
				write(out, e.Output) // the package's own lines: ok, FAIL, panics
				continue
			}
			top := key{e.Package, topLevel(e.Test)}
			buffered[top] = append(buffered[top], e.Output)
		case "pass", "skip", "fail":
			if e.Action == "fail" {
				res.failed = true
				if e.Test != "" && !strings.Contains(e.Test, "/") {
					// A top-level test's output holds its subtests' too.
					write(out, strings.Join(buffered[k], ""))
				}
			}
			if e.Test != "" && !strings.Contains(e.Test, "/") && e.Action != "skip" {
				times = append(times, timing{key: k, seconds: e.Elapsed, failed: e.Action == "fail"})
			}
			if e.Test == "" {
				clearPackage(buffered, e.Package)
			} else if !strings.Contains(e.Test, "/") {
				delete(buffered, k)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("read the test2json stream: %w", err)
	}
	writeSlowest(out, times, slowest)
	return res, nil
}

// topLevel returns the top-level test of a test name ("TestA/b" → "TestA").
func topLevel(test string) string {
	if i := strings.IndexByte(test, '/'); i >= 0 {
		return test[:i]
	}
	return test
}

// clearPackage drops the buffered output of a finished package's tests.
func clearPackage(buffered map[key][]string, pkg string) {
	for b := range buffered {
		if b.pkg == pkg {
			delete(buffered, b)
		}
	}
}

// writeSlowest lists the n slowest top-level tests, slowest first.
func writeSlowest(out io.Writer, times []timing, n int) {
	if n <= 0 || len(times) == 0 {
		return
	}
	sort.SliceStable(times, func(i, j int) bool { return times[i].seconds > times[j].seconds })
	if len(times) > n {
		times = times[:n]
	}
	write(out, fmt.Sprintf("== the %d slowest tests\n", len(times)))
	for _, t := range times {
		mark := ""
		if t.failed {
			mark = " (FAIL)"
		}
		write(out, fmt.Sprintf("%8.2fs  %s %s%s\n", t.seconds, t.pkg, t.test, mark))
	}
}
