package mailauth

import (
	"os"
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
