package mailauth

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.False(t, x.shown.Load(), "format marked the text shown")
	x.with()
	assert.True(t, x.shown.Load(), "with did not mark the text shown")
	text{zh: "二。", en: "Two."}.with() // a text not made by msg renders too
}

// TestExpectedTextsUseFormat: the tests of this package build expected
// texts with format, never with, so that only the code under test marks a
// catalogue text shown; otherwise a test could satisfy the gate of
// TestMain for a text the code never renders.
func TestExpectedTextsUseFormat(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err, "no test files")
	require.NotEmpty(t, files, "no test files")
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "TestWithMarksShown" {
				continue // tests with itself
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						assert.NotEqual(t, "with", sel.Sel.Name, "%s: a test renders a text with with; use format", fset.Position(call.Pos()))
					}
				}
				return true
			})
		}
	}
}
