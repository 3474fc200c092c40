package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// judgedCodes checks one protocol package: every code it can report has
// exactly one of a judgement rule, a note, or an explicit "ignored
// because" entry, and every table entry is a code the package reports.
func judgedCodes(t *testing.T, name CheckID, table findingTable) {
	t.Helper()
	rules, notes, ignored := table.rules, table.notes, table.ignored
	if !assert.NotEmpty(t, table.codes, "check %s: its checkTable row has no codes (codeColumn of its protocol package's Codes() and the judge's tables)", name) {
		return
	}
	known := map[string]bool{}
	for _, c := range table.codes {
		known[c] = true
		_, r := rules[c]
		_, n := notes[c]
		why, i := ignored[c]
		assert.True(t, r || n || i, "%s finding %q has no judgement rule, no note and no ignored-because entry", name, c)
		assert.False(t, r && n || r && i || n && i, "%s finding %q is in more than one of rules, notes and ignored", name, c)
		if i {
			assert.NotEmpty(t, why, "%s finding %q is ignored without a reason", name, c)
		}
	}
	for c := range rules {
		assert.True(t, known[c], "%s rule for %q, which Codes() does not list", name, c)
	}
	for c := range notes {
		assert.True(t, known[c], "%s note for %q, which Codes() does not list", name, c)
	}
	for c := range ignored {
		assert.True(t, known[c], "%s ignores %q, which Codes() does not list", name, c)
	}
}

// TestEveryCodeJudged: a finding code added to a protocol package fails
// this test until the root decides what it means. The packages are the
// rows of checkTable, so a new check is covered by its row.
func TestEveryCodeJudged(t *testing.T) {
	for _, c := range checkTable {
		judgedCodes(t, c.id, c.codes)
	}
}
