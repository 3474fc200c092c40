package mailauth

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
)

// reached records the catalogue texts rendered while the tests run.
var reached sync.Map

// TestMain runs the tests and then, when the whole package ran (no -run
// or -skip filter and no -short), fails if a catalogue text was rendered
// by no test: every sentence a user can read is pinned by a test.
func TestMain(m *testing.M) {
	rendered = func(t text) { reached.Store(t, true) }
	code := m.Run()
	if code == 0 && wholeRun() {
		var missing []text
		for _, t := range catalogue {
			if _, ok := reached.Load(t); !ok {
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
