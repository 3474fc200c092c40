package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckTable: every row of the checks table is complete and its id
// is unique, and CheckOrder hands out a copy the caller cannot use to
// reorder the scanner's checks.
func TestCheckTable(t *testing.T) {
	seen := map[CheckID]bool{}
	for _, c := range checkTable {
		assert.NotEmpty(t, c.id, "row %q: empty or repeated id", c.id)
		assert.False(t, seen[c.id], "row %q: empty or repeated id", c.id)
		seen[c.id] = true
		assert.NotEmpty(t, c.title.en, "row %q is incomplete", c.id)
		assert.NotEmpty(t, c.title.zh, "row %q is incomplete", c.id)
		assert.GreaterOrEqual(t, c.weight, 0, "row %q is incomplete", c.id)
		assert.NotNil(t, c.check, "row %q is incomplete", c.id)
		assert.NotNil(t, c.unknown, "row %q is incomplete", c.id)
		assert.NotNil(t, c.rules, "row %q is incomplete", c.id)
		assert.NotEmpty(t, c.rules(), "row %q has no rules", c.id)
	}
	order := CheckOrder()
	require.Len(t, order, len(checkTable), "CheckOrder has %d ids, the table %d rows", len(order), len(checkTable))
	order[0] = "changed"
	assert.Equal(t, checkTable[0].id, CheckOrder()[0], "a caller changed the order through the slice CheckOrder returned")
}
