package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// catalogueMessages reads the fixed message of every apiError of the
// catalogue in errors.go, by variable name, so that a new entry cannot be
// forgotten by a hand-kept list.
func catalogueMessages(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	require.NoError(t, err)
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, v := range vs.Values {
			lit, ok := v.(*ast.CompositeLit)
			if !ok { // a constant, not a catalogue entry
				continue
			}
			if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "apiError" || len(lit.Elts) != 3 {
				continue
			}
			s, ok := lit.Elts[1].(*ast.BasicLit)
			require.True(t, ok, "%s: message is not a string literal", vs.Names[i].Name)
			require.Equal(t, token.STRING, s.Kind, "%s: message is not a string literal", vs.Names[i].Name)
			msg, err := strconv.Unquote(s.Value)
			require.NoError(t, err)
			out[vs.Names[i].Name] = msg
		}
		return true
	})
	require.GreaterOrEqual(t, len(out), 10, "found only %d catalogue entries in errors.go", len(out))
	return out
}

// TestDeveloperErrorsCoverCatalogue: every fixed message the service can
// answer is listed on the API page's error table.
func TestDeveloperErrorsCoverCatalogue(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	page := html.UnescapeString(string(mustAsset(t, ps, "/developers/api/")))
	for name, msg := range catalogueMessages(t) {
		assert.Contains(t, page, msg, "%s (%q) is not on the API page", name, msg)
	}
}

// TestDocSchemasMalformed: a properties value that is not an object is an
// error, not a panic.
func TestDocSchemasMalformed(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`{"components":{"schemas":{"ScanRequest":{"properties":[1]}}}}`, `{"components":{"schemas":{"ScanRequest":{"properties":{"a":1}}}}}`} {
		_, err := docSchemas([]byte(doc))
		assert.Error(t, err, "%s: no error", doc)
	}
}

// TestErrorCatalogueChinese: every fixed message of the catalogue has a
// Chinese text for the web page, and the page carries the table.
func TestErrorCatalogueChinese(t *testing.T) {
	t.Parallel()
	han := func(s string) bool {
		for _, r := range s {
			if r >= 0x4e00 && r <= 0x9fff {
				return true
			}
		}
		return false
	}
	for name, msg := range catalogueMessages(t) {
		zh, ok := errorTextsZH[msg]
		if assert.True(t, ok, "%s (%q) has no Chinese text in errorTextsZH", name, msg) {
			assert.True(t, han(zh), "%s: the Chinese text %q has no Chinese", name, zh)
		}
	}
	ps, err := pages()
	require.NoError(t, err)
	page := html.UnescapeString(string(mustAsset(t, ps, "/")))
	assert.Contains(t, page, errorTextsZH[errResolverDown.msg], "the page does not carry the Chinese error texts")
}
