package mailauth

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// TestMain runs the tests and then, when the whole package ran (no -run
// or -skip filter and no -short), fails if a catalogue text was rendered
// by no test: every sentence a user can read is pinned by a test.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && wholeRun() {
		var missing []text
		for _, t := range catalogue {
			if !t.shown.Load() {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "%d of %d catalogue texts are rendered by no test:\n", len(missing), len(catalogue))
			for _, t := range missing {
				fmt.Fprintf(os.Stderr, "  %s\n", t.en)
			}
			code = 1
		}
	}
	os.Exit(code)
}

// wholeRun reports whether every test of the package ran.
func wholeRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}

// TestWithMarksShown: rendering a text with with marks it shown (the
// gate of TestMain reads that mark); format, used for expected values,
// does not.
func TestWithMarksShown(t *testing.T) {
	x := text{zh: "一。", en: "One.", shown: new(atomic.Bool)}
	x.format()
	if x.shown.Load() {
		t.Error("format marked the text shown")
	}
	x.with()
	if !x.shown.Load() {
		t.Error("with did not mark the text shown")
	}
	text{zh: "二。", en: "Two."}.with() // a text not made by msg renders too
}
