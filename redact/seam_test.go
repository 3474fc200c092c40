package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seamSentences is a small catalogue joined as the service joins it.
var seamSentences = []Joined{
	{Sep: "", Sentences: []string{"已评估的 %d 项检查中有 %d 项通过。", "其中 %d 项无法确定。", "记录存在。", "没有更多细节。"}},
	{Sep: " ", Sentences: []string{"%d of %d evaluated checks pass.", "Of these, %d could not be determined.", "The record exists.", "No further details."}},
}

// TestJoinedVocabularySeams: values spanning the seams of joined
// sentences, in both languages and across whole sentences, are in the
// vocabulary; values that only look like a seam are not.
func TestJoinedVocabularySeams(t *testing.T) {
	v := NewJoinedVocabulary([]string{"reject"}, seamSentences...)
	for _, in := range []string{"。其", "。记", "通过。其中", "。记录存在。没有", "。其中", "pass. of", "pass. of these,", "exists. no further", "determined. the record exists. no", "reject"} {
		assert.True(t, v.contains(in), "%q should be in the vocabulary", in)
	}
	for _, out := range []string{"。kanari", "kanari。其", "pass. kanari", "exists.no", "。记 。其", "\x01其中", "其中\x02"} {
		assert.False(t, v.contains(out), "%q should not be in the vocabulary", out)
	}
	assert.True(t, v.Composes("记录存在。没有更多细节。"))
	assert.True(t, v.Composes("%d of %d evaluated checks pass. of these, %d could not be determined."))
	assert.False(t, v.Composes("记录存在。kanari。"))
	assert.False(t, v.Composes("记录存在"))
}

// TestSeamTokensNotRecorded: a Set with a joined vocabulary does not
// record seam tokens, so a joined text is not flagged.
func TestSeamTokensNotRecorded(t *testing.T) {
	s := NewSet()
	s.UseVocabulary(NewJoinedVocabulary(nil, seamSentences...))
	s.AddText("。记 。其")
	s.AddText("pass. Of these,")
	assert.False(t, s.Contains("记录存在。记录存在。其中 3 项无法确定。"))
	assert.False(t, s.Contains("3 of 5 evaluated checks pass. Of these, 1 could not be determined."))
}

// FuzzJoinedVocabulary: every piece of two or three joined sentences is
// in the vocabulary, whatever the cut; arbitrary values never panic.
func FuzzJoinedVocabulary(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(2), uint16(10), uint16(20), "。记 。其")
	f.Add(uint8(4), uint8(5), uint8(6), uint16(20), uint16(35), "pass. Of these")
	f.Add(uint8(2), uint8(0), uint8(3), uint16(5), uint16(60), "。其中")
	f.Add(uint8(6), uint8(7), uint8(4), uint16(0), uint16(200), "exists. No")
	v := NewJoinedVocabulary([]string{"reject"}, seamSentences...)
	f.Fuzz(func(t *testing.T, a, b, c uint8, from, to uint16, value string) {
		_ = v.contains(strings.ToLower(value))
		_ = v.Composes(strings.ToLower(value))
		g := seamSentences[int(a)%8/4]
		pick := func(x uint8) string { return strings.ToLower(g.Sentences[int(x)%4]) }
		joined := pick(a) + g.Sep + pick(b) + g.Sep + pick(c)
		i, j := int(from)%(len(joined)+1), int(to)%(len(joined)+1)
		if i > j {
			i, j = j, i
		}
		piece := joined[i:j]
		if len(piece) < 4 || !utf8Valid(piece) {
			return
		}
		require.True(t, v.contains(piece), "%q, a piece of %q, is not in the vocabulary", piece, joined)
		require.True(t, v.Composes(joined), "%q is not composed of the sentences", joined)
	})
}

// utf8Valid reports whether s starts and ends on rune boundaries.
func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
