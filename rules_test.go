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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "rules.go" {
			continue
		}
		for _, en := range ruleTexts(t, f) {
			found++
			assert.True(t, listed[anyNumber(strings.ReplaceAll(en, "%%", "%"))], "%s: rule %q is not listed by StatusRules", f, en)
		}
	}
	assert.GreaterOrEqual(t, found, 50, "found only %d rules in the sources; the parser no longer recognises them", found)
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
	require.NoError(t, err)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if id, ok := n.Type.(*ast.Ident); ok && id.Name == "rule" {
				out = append(out, sayOf(t, file, n)...)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "warnLow" && len(n.Args) == 3 {
				assert.NotEmpty(t, stringLit(n.Args[0]), "%s: warnLow without a literal id", file)
				out = append(out, stringLit(n.Args[2])...)
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
					out = append(out, sayOf(t, file, v)...)
				}
			}
		}
		return true
	})
	return out
}

// sayOf returns the English text of a rule literal's say: msg(zh, en).
// A literal with a sentence must declare its id beside it.
func sayOf(t *testing.T, file string, cl *ast.CompositeLit) []string {
	t.Helper()
	var id []string
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "id" {
				id = stringLit(kv.Value)
			}
		}
	}
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
		if fn, ok := call.Fun.(*ast.Ident); ok && fn.Name == "msg" {
			en := stringLit(call.Args[1])
			if len(en) > 0 { // a literal sentence, not warnLow's own body
				assert.NotEmpty(t, id, "%s: rule %q declares no literal id", file, en)
			}
			return en
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
		assert.Equal(t, weights[w.Check], w.Weight, "%+v", w)
		assert.NotEmpty(t, w.Title.EN, "%+v", w)
	}
	assert.Equal(t, 100, sum, "weights sum to %d, want 100", sum)
	for _, f := range GradeFloors() {
		assert.Equal(t, f.Grade, gradeFor(f.MinScore), "grade floor %+v does not match gradeFor", f)
		if f.MinScore > 0 {
			assert.NotEqual(t, f.Grade, gradeFor(f.MinScore-1), "grade floor %+v does not match gradeFor", f)
		}
	}
	assert.Equal(t, LocalizedText{}, CheckTitle("nope"), "CheckTitle")
	assert.NotEmpty(t, CheckTitle(CheckMX).EN, "CheckTitle")
}

// TestStatusRulesShape: every listed rule has a known status and
// severity and both texts, and no count verb survives.
func TestStatusRulesShape(t *testing.T) {
	for _, r := range StatusRules() {
		assert.Contains(t, statusRank, r.Status, "%+v: status", r)
		assert.Contains(t, severityRank, r.Severity, "%+v: severity", r)
		assert.NotEmpty(t, r.Text.EN, "%+v: text", r)
		assert.NotEmpty(t, r.Text.ZH, "%+v: text", r)
		assert.False(t, strings.Contains(r.Text.EN, "%") && !strings.Contains(r.Text.EN, "%{p}"), "%+v: text", r)
	}
}
