package redact

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackVocabularyMemoryHoldsNoWireData: hostile scans sharing one
// Vocabulary send values that are vocabulary prefixes, words with
// wire-data suffixes, case variants, seam-spanning pieces and markers, and
// fill the memory to its bound; the memory then holds only text the
// vocabulary holds (checked against a fresh Vocabulary without memory),
// and a later scan still records its own values, including ones that
// begin or end with remembered words.
func TestAttackVocabularyMemoryHoldsNoWireData(t *testing.T) {
	words := []string{"The record ends in -all; p=reject mx.", "reject", "quarantine", "include"}
	joined := Joined{Sep: " ", Sentences: []string{"The check passed.", "Of course it did.", "Nothing else."}}
	v := NewJoinedVocabulary(words, joined)
	fresh := NewJoinedVocabulary(words, joined)

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSet()
			s.UseVocabulary(v)
			for i := range 3000 {
				s.Add(
					"reje", "REJECT", "reject"+fmt.Sprint(g, i)+".example", "quarantine.example",
					"passed. of course", "PASSED. OF COURSE IT", "passed. of cour"+fmt.Sprint(i),
					"ends in -all; p="+fmt.Sprint(i), "\x01reject", "reject\x02",
					strings.Repeat("a", i%50)+"reject",
				)
				// Every substring of the texts, to fill the memory past its bound.
				text := strings.ToLower(words[0])
				for a := 0; a+4 <= len(text); a++ {
					s.Add(text[a:min(len(text), a+4+i%30)])
				}
			}
		}()
	}
	wg.Wait()

	v.found.mu.RLock()
	n := len(v.found.m)
	for f := range v.found.m {
		assert.True(t, fresh.contains(f), "remembered %q, which the vocabulary does not hold", f)
	}
	v.found.mu.RUnlock()
	assert.LessOrEqual(t, n, maxFound)

	s := NewSet()
	s.UseVocabulary(v)
	s.Add("reject.attacker.example", "passed. of course-secret", "the record ends in -all; p=rejectx")
	s.AddText("v=spf1 include:secret.example -all")
	for _, out := range []string{"reject.attacker.example", "passed. of course-secret", "secret.example", "The record ends in -all; p=rejectx"} {
		assert.ErrorIs(t, s.Verify([]byte(fmt.Sprintf(`{"a":%q}`, out))), ErrLeak, out)
	}
}
