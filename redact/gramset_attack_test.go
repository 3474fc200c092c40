package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gramSetLongestRun returns the longest run of used slots of g's table
// (wrapping around), the most slots a lookup of an absent window that
// passes the bit set reads, and the slots used.
func gramSetLongestRun(g *gramSet) (longest, used int) {
	n, run := len(g.table), 0
	for i := range 2 * n {
		if g.table[i%n] == 0 {
			run = 0
			continue
		}
		if run++; run > longest {
			longest = min(run, n)
		}
		if i < n {
			used++
		}
	}
	return longest, used
}

// TestGramSetRunsShort: a lookup of attacker bytes in the windows' table
// reads a bounded run of slots, for a catalogue-like text of
// thousands of windows (9,068): the table is at most half full and its slot
// hash spreads the windows of ASCII text (the real catalogue: 15,454
// windows in 32,768 slots, longest run 32).
func TestGramSetRunsShort(t *testing.T) {
	var b strings.Builder
	for _, w := range diffVocabulary {
		b.WriteString(w + "\x01")
	}
	for _, j := range seamSentences {
		for _, s := range j.Sentences {
			b.WriteString(s + "\x03")
		}
	}
	for i := range 3000 {
		fmt.Fprintf(&b, "The record %d of mail%d.example has %d lookups; it is %s.\x01", i, i*7, i%11, []string{"valid", "invalid", "not found"}[i%3])
	}
	g := newGramSet(b.String())
	longest, used := gramSetLongestRun(&g)
	require.LessOrEqual(t, 2*used, len(g.table), "the table is more than half full")
	require.Greater(t, used, 5000)
	require.LessOrEqual(t, longest, 64, "a run of %d used slots of %d (%d used)", longest, len(g.table), used)
	t.Logf("%d windows in %d slots, longest run %d", used, len(g.table), longest)
}
