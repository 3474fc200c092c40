package mailauth

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingIDForm is the form of a finding id: the check's id (scan for the
// rules every check shares), a dot, and kebab-case words. It is a valid
// HTML id and URL fragment as it stands, with nothing to escape.
var findingIDForm = regexp.MustCompile(`^([a-z]+(-[a-z]+)?)\.[a-z0-9]+(-[a-z0-9]+)*$`)

// TestFindingIDs: every listed rule has an id of the stable form whose
// prefix is its check's id, no two rules share one, and no id names two
// sentences.
func TestFindingIDs(t *testing.T) {
	seen := map[string]StatusRule{}
	for _, r := range StatusRules() {
		m := findingIDForm.FindStringSubmatch(r.ID)
		require.NotNil(t, m, "%q (%s): id %q is not of the form check.kebab-case", r.Text.EN, r.Check, r.ID)
		want := string(r.Check)
		if want == "" {
			want = "scan"
		}
		assert.Equal(t, want, m[1], "%s: the id's prefix is not its check's id", r.ID)
		if prev, dup := seen[r.ID]; dup {
			assert.Failf(t, "duplicate finding id", "%s names both %q and %q", r.ID, prev.Text.EN, r.Text.EN)
		}
		seen[r.ID] = r
	}
	texts := map[string]string{}
	for id, r := range seen {
		key := string(r.Check) + "\x00" + r.Text.EN
		if other, dup := texts[key]; dup {
			assert.Failf(t, "one sentence, two ids", "%s and %s both say %q", id, other, r.Text.EN)
		}
		texts[key] = id
	}
}

// TestFindingIDsStable: the ids are for good. Every id in
// testdata/finding-ids.txt still exists (links to the help pages' anchors
// and keys of the help texts rely on it), and a new rule's id is added
// to the file in the same change.
func TestFindingIDsStable(t *testing.T) {
	b, err := os.ReadFile("testdata/finding-ids.txt")
	require.NoError(t, err)
	var pinned []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			pinned = append(pinned, l)
		}
	}
	var now []string
	for _, r := range StatusRules() {
		now = append(now, r.ID)
	}
	for _, id := range pinned {
		assert.Contains(t, now, id, "finding id %s is gone: ids are stable; restore it", id)
	}
	for _, id := range now {
		assert.True(t, slices.Contains(pinned, id), "finding id %s is new: add it to testdata/finding-ids.txt", id)
	}
}
