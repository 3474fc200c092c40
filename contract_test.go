package mailauth

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/report/aliasgen"
)

// TestContractAliasesGenerated: contract.go is exactly what genalias
// writes from internal/report, so no contract name is copied by hand.
func TestContractAliasesGenerated(t *testing.T) {
	src, err := os.ReadFile("internal/report/report.go")
	require.NoError(t, err)
	want, err := aliasgen.Generate(src)
	require.NoError(t, err)
	got, err := os.ReadFile("contract.go")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "contract.go is stale: run go generate ./...")
}

// TestContractAliasesDocumented: go doc shows each contract type with the
// first sentence of its documentation in internal/report, and its values
// listed under it.
func TestContractAliasesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(path string) *doc.Package {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		p, err := doc.NewFromFiles(fset, []*ast.File{f}, "example.com/x", doc.PreserveAST)
		require.NoError(t, err)
		return p
	}
	report, root := parse("internal/report/report.go"), parse("contract.go")
	want := map[string]*doc.Type{}
	for _, typ := range report.Types {
		want[typ.Name] = typ
	}
	require.NotEmpty(t, root.Types)
	for _, typ := range root.Types {
		r, ok := want[typ.Name]
		if !assert.True(t, ok, "%s is not a report type", typ.Name) {
			continue
		}
		assert.Equal(t, report.Synopsis(r.Doc), strings.Join(strings.Fields(typ.Doc), " "), "the doc of %s", typ.Name)
		assert.NotContains(t, typ.Doc, "see internal/report", typ.Name)
		assert.Len(t, names(typ.Consts), len(names(r.Consts)), "the values of %s", typ.Name)
	}
	assert.Empty(t, root.Consts, "every contract constant is listed under its type")
}

// names are the names a list of documented values declares.
func names(vs []*doc.Value) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Names...)
	}
	return out
}
