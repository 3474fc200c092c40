// Package codetest checks, in tests, that a protocol package's Codes()
// lists every finding code the package declares: the judgement tests of
// the root package walk Codes(), so a code missing from it would escape
// them. It reads the package's source with go/parser; it is imported by
// tests only.
package codetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// declared returns the values of the string constants of type typeName
// declared in the non-test Go files of dir, sorted.
func declared(tb testing.TB, dir, typeName string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			tb.Fatalf("parse %s: %v", name, err)
		}
		out = append(out, constants(f, typeName)...)
	}
	slices.Sort(out)
	return out
}

// constants returns the values of the typed string constants of f.
func constants(f *ast.File, typeName string) []string {
	var out []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typeName {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// Complete fails tb unless listed (a package's Codes()) holds every
// constant of type Code declared in the package in the current directory
// exactly once, and nothing else.
func Complete[C ~string](tb testing.TB, listed []C) {
	tb.Helper()
	const dir, typeName = ".", "Code"
	declared := declared(tb, dir, typeName)
	if len(declared) == 0 {
		tb.Fatalf("no constants of type %s found in %s", typeName, dir)
	}
	got := make([]string, 0, len(listed))
	for _, c := range listed {
		got = append(got, string(c))
	}
	slices.Sort(got)
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			tb.Errorf("Codes() lists %q twice", got[i])
		}
	}
	for _, c := range declared {
		if !slices.Contains(got, c) {
			tb.Errorf("code %q is declared but Codes() does not list it", c)
		}
	}
	for _, c := range got {
		if !slices.Contains(declared, c) {
			tb.Errorf("Codes() lists %q, which is not a declared %s constant", c, typeName)
		}
	}
}
