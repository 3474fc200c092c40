package mailauth

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var verb = regexp.MustCompile(`%(\[\d+\])?[a-z]`)

// TestCatalogue checks every text: both languages present, the Chinese
// one in Chinese and the English one in English, the same integer
// parameters in both, and nothing but %d parameters (so no record-derived
// string can ever be worded into a text).
func TestCatalogue(t *testing.T) {
	require.GreaterOrEqual(t, len(catalogue), 20, "catalogue has %d texts; the checks have not registered theirs", len(catalogue))
	for i, m := range catalogue {
		zhOK := assert.NotEmpty(t, strings.TrimSpace(m.zh), "text %d: a language is missing: %q / %q", i, m.zh, m.en)
		enOK := assert.NotEmpty(t, strings.TrimSpace(m.en), "text %d: a language is missing: %q / %q", i, m.zh, m.en)
		if !zhOK || !enOK {
			continue
		}
		assert.True(t, hasHan(m.zh), "text %d: Chinese text has no Chinese: %q", i, m.zh)
		assert.False(t, hasHan(m.en), "text %d: English text has Chinese: %q", i, m.en)
		zv, ev := verbs(m.zh), verbs(m.en)
		assert.Equal(t, zv, ev, "text %d: %d parameters in Chinese, %d in English: %q / %q", i, zv, ev, m.zh, m.en)
		for _, v := range verb.FindAllString(m.zh+m.en, -1) {
			assert.True(t, strings.HasSuffix(v, "d"), "text %d: parameter %s is not an integer", i, v)
		}
		args := make([]int, ev)
		for j := range args {
			args[j] = j + 2
		}
		out := m.format(args...)
		assert.NotContains(t, out.ZH+out.EN, "%!", "text %d renders badly: %q / %q", i, out.ZH, out.EN)
		assert.False(t, !strings.HasSuffix(m.en, ".") && !strings.HasSuffix(m.en, ")") && len(m.en) > 40, "text %d: English sentence should end with a full stop: %q", i, m.en)
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// verbs counts the distinct arguments a format uses.
func verbs(s string) int {
	n, explicit := 0, map[string]bool{}
	for _, v := range verb.FindAllStringSubmatch(s, -1) {
		if v[1] != "" {
			explicit[v[1]] = true
		} else {
			n++
		}
	}
	if len(explicit) > n {
		return len(explicit)
	}
	return n
}

func TestTitlesForEveryCheck(t *testing.T) {
	for _, id := range CheckOrder() {
		assert.Contains(t, titles, id, "no title for %s", id)
	}
}

func TestJoinTexts(t *testing.T) {
	got := joinTexts([]LocalizedText{{ZH: "甲。", EN: "One."}, {ZH: "乙。", EN: "Two."}})
	require.Equal(t, "甲。乙。", got.ZH, "joinTexts = %+v", got)
	require.Equal(t, "One. Two.", got.EN, "joinTexts = %+v", got)
}

// TestSprintInts: every catalogue text, rendered with one to four
// counts (small, large, negative), is exactly what fmt.Sprintf makes of
// it, whichever way sprintInts takes.
func TestSprintInts(t *testing.T) {
	argSets := [][]int{{}, {7}, {0, 12}, {3, 1024, 5}, {-2, 99, 100000, 8}}
	for _, m := range catalogue {
		for _, f := range []string{m.zh, m.en} {
			for _, args := range argSets {
				a := make([]any, len(args))
				for i, v := range args {
					a[i] = v
				}
				require.Equal(t, fmt.Sprintf(f, a...), sprintInts(f, args), "%q with %v", f, args)
			}
		}
	}
	for _, f := range []string{"", "%", "100%%", "%d%%", "a %d b %d", "%[2]d of %[1]d", "%s", "%5d", "end %"} {
		for _, args := range argSets {
			a := make([]any, len(args))
			for i, v := range args {
				a[i] = v
			}
			require.Equal(t, fmt.Sprintf(f, a...), sprintInts(f, args), "%q with %v", f, args)
		}
	}
}
