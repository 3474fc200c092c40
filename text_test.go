package mailauth

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var verb = regexp.MustCompile(`%(\[\d+\])?[a-z]`)

// TestCatalogue checks every text: both languages present, the Chinese
// one in Chinese and the English one in English, the same integer
// parameters in both, and nothing but %d parameters (so no record-derived
// string can ever be worded into a text).
func TestCatalogue(t *testing.T) {
	if len(catalogue) < 20 {
		t.Fatalf("catalogue has %d texts; the checks have not registered theirs", len(catalogue))
	}
	for i, m := range catalogue {
		if strings.TrimSpace(m.zh) == "" || strings.TrimSpace(m.en) == "" {
			t.Errorf("text %d: a language is missing: %q / %q", i, m.zh, m.en)
			continue
		}
		if !hasHan(m.zh) {
			t.Errorf("text %d: Chinese text has no Chinese: %q", i, m.zh)
		}
		if hasHan(m.en) {
			t.Errorf("text %d: English text has Chinese: %q", i, m.en)
		}
		zv, ev := verbs(m.zh), verbs(m.en)
		if zv != ev {
			t.Errorf("text %d: %d parameters in Chinese, %d in English: %q / %q", i, zv, ev, m.zh, m.en)
		}
		for _, v := range verb.FindAllString(m.zh+m.en, -1) {
			if !strings.HasSuffix(v, "d") {
				t.Errorf("text %d: parameter %s is not an integer", i, v)
			}
		}
		args := make([]int, ev)
		for j := range args {
			args[j] = j + 2
		}
		out := m.format(args...)
		if strings.Contains(out.ZH+out.EN, "%!") {
			t.Errorf("text %d renders badly: %q / %q", i, out.ZH, out.EN)
		}
		if !strings.HasSuffix(m.en, ".") && !strings.HasSuffix(m.en, ")") && len(m.en) > 40 {
			t.Errorf("text %d: English sentence should end with a full stop: %q", i, m.en)
		}
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
		if _, ok := titles[id]; !ok {
			t.Errorf("no title for %s", id)
		}
	}
}

func TestJoinTexts(t *testing.T) {
	got := joinTexts([]LocalizedText{{ZH: "甲。", EN: "One."}, {ZH: "乙。", EN: "Two."}})
	if got.ZH != "甲。乙。" || got.EN != "One. Two." {
		t.Fatalf("joinTexts = %+v", got)
	}
}
