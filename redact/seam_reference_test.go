package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refContains is Vocabulary.contains as it was before the search across
// seams was made linear: a string built and looked up for every sentence
// end in the value, and every pair of them tried. The faster search must
// give the same verdict for every value.
func refContains(v *Vocabulary, f string) bool {
	if v == nil || len(f) < 4 || hasMarker(f) {
		return false
	}
	if refInside(v, f) {
		return true
	}
	for k := range v.groups {
		if refAcrossSeams(v, f, &v.groups[k]) {
			return true
		}
	}
	return false
}

func refInside(v *Vocabulary, f string) bool {
	for i := 0; i+4 <= len(f); i++ {
		if !v.grams.has(gram(f[i:])) {
			return false
		}
	}
	return v.has(f)
}

func refAcrossSeams(v *Vocabulary, f string, g *joinGroup) bool {
	var buf [maxSeamCuts + 1]int
	cuts := seamCuts(f, g, buf[:0])
	if len(cuts) == 0 && (g.sep == "" || !strings.HasPrefix(f, g.sep)) {
		return false
	}
	if g.sep != "" && strings.HasPrefix(f, g.sep) {
		cuts = append([]int{0}, cuts...)
	}
	ends := make([]bool, len(cuts))
	for k, c := range cuts {
		if c == 0 || v.has(f[:c]+string(g.end)) {
			ends[k] = true
			continue
		}
		for j := range k {
			if ends[j] && v.wholeAfter(f[cuts[j]:c], g) {
				ends[k] = true
				break
			}
		}
	}
	for k, c := range cuts {
		if !ends[k] {
			continue
		}
		rest, ok := strings.CutPrefix(f[c:], g.sep)
		if c == len(f) || ok && (rest == "" || v.has(string(g.start)+rest)) {
			return true
		}
	}
	return false
}

// referenceVocabulary is seamSentences with more English sentences that
// end in a dot and hold dots, digits and host-like words, so that wire
// values (addresses, names, SPF records) cross many candidate seams.
func referenceVocabulary() *Vocabulary {
	groups := append([]Joined(nil), seamSentences...)
	groups[1].Sentences = append(append([]string(nil), groups[1].Sentences...),
		"See mail.example.", "The ip4: mechanism covers 192.0.2.0/24.", "Version 1.2.3.", "a.", "Use v=spf1 -all.")
	return NewJoinedVocabulary([]string{"reject", "ip4:", "v=spf1"}, groups...)
}

// seamCorpus are values whose verdict the two searches must agree on:
// seam pieces, near misses and hostile wire values.
func seamCorpus() []string {
	out := []string{
		"。其", "。记", "通过。其中", "。记录存在。没有", "。其中", "pass. of", "pass. of these,",
		"exists. no further", "determined. the record exists. no", "reject", "。kanari", "kanari。其",
		"pass. kanari", "exists.no", "。记 。其", "mail.example. the record", "a. a. a. see",
		"24. version 1.2.3. a. the", "1.2.3. a.", " the record exists. see mail.example.",
		"v=spf1 -all. a. version", "0/24. a.", "ip4:192.0.2.0/24.",
	}
	var spf strings.Builder
	spf.WriteString("v=spf1")
	for k := range 40 {
		fmt.Fprintf(&spf, " ip4:198.51.%d.%d/32", k, k)
		out = append(out, fmt.Sprintf("ip4:198.51.%d.%d", k, k), fmt.Sprintf("a.%d.a.%d. a.", k, k))
	}
	out = append(out, spf.String()+" -all", strings.Repeat("a. ", 30)+"see", strings.Repeat("a.", 70))
	return out
}

// TestSeamSearchMatchesReference: the linear search across seams gives
// the reference's verdict on the seam corpus, for both vocabularies.
func TestSeamSearchMatchesReference(t *testing.T) {
	for _, v := range []*Vocabulary{NewJoinedVocabulary([]string{"reject"}, seamSentences...), referenceVocabulary()} {
		matched := 0
		for _, f := range seamCorpus() {
			f = strings.ToLower(f)
			want := refContains(v, f)
			require.Equal(t, want, v.contains(f), "contains(%q)", f)
			if want {
				matched++
			}
		}
		require.Positive(t, matched, "the corpus holds values the vocabulary has")
	}
}

// FuzzSeamSearchMatchesReference: for any value, and for any piece of
// joined sentences, the linear search and the reference agree.
func FuzzSeamSearchMatchesReference(f *testing.F) {
	for _, s := range seamCorpus() {
		f.Add(s, uint8(0), uint8(0), uint16(0), uint16(0))
	}
	f.Add("", uint8(4), uint8(7), uint16(3), uint16(40))
	v := referenceVocabulary()
	sentences := append(append([]string(nil), seamSentences[1].Sentences...),
		"See mail.example.", "The ip4: mechanism covers 192.0.2.0/24.", "Version 1.2.3.", "a.", "Use v=spf1 -all.")
	f.Fuzz(func(t *testing.T, value string, a, b uint8, from, to uint16) {
		value = strings.ToLower(value)
		require.Equal(t, refContains(v, value), v.contains(value), "contains(%q)", value)
		joined := strings.ToLower(sentences[int(a)%len(sentences)] + " " + sentences[int(b)%len(sentences)] + " " + value)
		i, j := int(from)%(len(joined)+1), int(to)%(len(joined)+1)
		if i > j {
			i, j = j, i
		}
		piece := joined[i:j]
		require.Equal(t, refContains(v, piece), v.contains(piece), "contains(%q)", piece)
	})
}
