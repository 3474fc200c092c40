package mailauth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStatusRulesComplete: every rule written in the package's sources
// (a rule{...} literal whose sentence is a msg(...), or a warnLow(...)
// call) is listed by StatusRules, so the documentation cannot miss a
// verdict a judge_*.go file adds.
func TestStatusRulesComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, r := range StatusRules() {
		listed[anyNumber(r.Text.EN)] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "rules.go" {
			continue
		}
		for _, en := range ruleTexts(t, f) {
			found++
			if !listed[anyNumber(strings.ReplaceAll(en, "%%", "%"))] {
				t.Errorf("%s: rule %q is not listed by StatusRules", f, en)
			}
		}
	}
	if found < 50 {
		t.Errorf("found only %d rules in the sources; the parser no longer recognises them", found)
	}
}

// anyNumber writes every count verb and every number of a sentence N: a
// sentence in the sources states its limits as %d verbs filled from
// constants (msg's limits), the listed one states them as numbers.
func anyNumber(s string) string {
	return digits.ReplaceAllString(countVerb.ReplaceAllString(s, "N"), "N")
}

var digits = regexp.MustCompile(`[0-9]+`)

// ruleTexts returns the English sentence of every rule literal in file.
func ruleTexts(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if id, ok := n.Type.(*ast.Ident); ok && id.Name == "rule" {
				out = append(out, sayOf(n)...)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "warnLow" && len(n.Args) == 2 {
				out = append(out, stringLit(n.Args[1])...)
			}
		}
		return true
	})
	// Elided types inside map[...]rule{...} literals.
	ast.Inspect(f, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		mt, ok := cl.Type.(*ast.MapType)
		if !ok {
			return true
		}
		if id, ok := mt.Value.(*ast.Ident); !ok || id.Name != "rule" {
			return true
		}
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if v, ok := kv.Value.(*ast.CompositeLit); ok && v.Type == nil {
					out = append(out, sayOf(v)...)
				}
			}
		}
		return true
	})
	return out
}

// sayOf returns the English text of a rule literal's say: msg(zh, en).
func sayOf(cl *ast.CompositeLit) []string {
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "say" {
			continue
		}
		call, ok := kv.Value.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			continue
		}
		if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "msg" {
			return stringLit(call.Args[1])
		}
	}
	return nil
}

func stringLit(e ast.Expr) []string {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return nil
	}
	s, err := strconv.Unquote(bl.Value)
	if err != nil {
		return nil
	}
	return []string{s}
}

// TestScoreTables: the documented tables are the ones the score uses.
func TestScoreTables(t *testing.T) {
	sum := 0
	for _, w := range ScoreWeights() {
		sum += w.Weight
		if w.Weight != weights[w.Check] || w.Title.EN == "" {
			t.Errorf("%+v", w)
		}
	}
	if sum != 100 {
		t.Errorf("weights sum to %d, want 100", sum)
	}
	for _, f := range GradeFloors() {
		if gradeFor(f.MinScore) != f.Grade || (f.MinScore > 0 && gradeFor(f.MinScore-1) == f.Grade) {
			t.Errorf("grade floor %+v does not match gradeFor", f)
		}
	}
	if CheckTitle("nope") != (LocalizedText{}) || CheckTitle(CheckMX).EN == "" {
		t.Error("CheckTitle")
	}
}

// TestStatusRulesShape: every listed rule has a known status and
// severity and both texts, and no count verb survives.
func TestStatusRulesShape(t *testing.T) {
	for _, r := range StatusRules() {
		if _, ok := statusRank[r.Status]; !ok {
			t.Errorf("%+v: status", r)
		}
		if _, ok := severityRank[r.Severity]; !ok {
			t.Errorf("%+v: severity", r)
		}
		if r.Text.EN == "" || r.Text.ZH == "" || strings.Contains(r.Text.EN, "%") && !strings.Contains(r.Text.EN, "%{p}") {
			t.Errorf("%+v: text", r)
		}
	}
}
