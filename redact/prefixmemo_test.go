package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// prefixMemoVocabularies are the vocabularies the prefix memo is checked
// against: none, plain words, the joined catalogue of seam_test.go, and
// one whose separator is longer than MinLen (a prefix shorter than it
// cannot start with it though the longer value may).
func prefixMemoVocabularies() []*Vocabulary {
	return []*Vocabulary{
		nil,
		NewVocabulary(diffVocabulary...),
		NewJoinedVocabulary([]string{"reject", "ip4:", "ip6:", "198.51.100.7/32"}, seamSentences...),
		NewJoinedVocabulary([]string{"v=spf1"}, Joined{Sep: " and then ", Sentences: []string{"It passed.", "It failed 2 times.", "Addresses 198.51.100.0/24 and 2001:db8::/32."}}),
	}
}

// checkPrefixMemo fails t when worthRecordingAt, given the prefixMemo
// that worthRecordingAt of g (lower-case bytes of a text at offset off)
// left, disagrees with worthRecording for any prefix of g, asked from
// the longest to the shortest as token asks them, or changes the memo.
// It returns the memo.
func checkPrefixMemo(t *testing.T, v *Vocabulary, g string) prefixMemo {
	t.Helper()
	s := NewSet()
	s.UseVocabulary(v)
	b := []byte(strings.ToLower(g))
	const off = 7
	var memo prefixMemo
	require.Equal(t, s.worthRecording(b), s.worthRecordingAt(b, off, &memo), "worthRecordingAt(%q)", b)
	// A text's value is at most MaxValueLen bytes (valueAs cuts it, see
	// capLen): a longer one leaves no memo, its prefixes are read anew.
	b = b[:capLen(b)]
	require.Equal(t, s.worthRecording(b), s.worthRecordingAt(b, off, &memo), "worthRecordingAt(%q)", b)
	left := memo
	for k := len(b); k >= 0; k-- {
		f := b[:k]
		require.Equal(t, s.worthRecording(f), s.worthRecordingAt(f, off, &memo), "worthRecordingAt(%q) after %q", f, b)
		require.Equal(t, left, memo, "memo after worthRecordingAt(%q), a prefix of %q", f, b)
		// At another offset f is not taken for a prefix of b.
		other := memo
		require.Equal(t, s.worthRecording(f), s.worthRecordingAt(f, off+1, &other), "worthRecordingAt(%q) at another offset", f)
	}
	return memo
}

// prefixMemoValues are values whose prefixes a text records after them:
// addresses and prefixes with the mechanism before them and without,
// words of the vocabularies, sentence ends and separators at every
// distance from the first window missing from a vocabulary.
var prefixMemoValues = []string{
	"198.51.100.7/32", "198.51.0.1/32", "2001:db8:a::1/128", "ip4:198.51.0.1/32", "ip6:2001:db8::/32",
	"1.2.3.4./24", "1.2.3.4/", "01.2.3.4/8", "10.0.0.1/33", "10.0.0.1/032", "1.2.3/24", "1.2.3.4/24/8", "255.255.255.255/0", "::ffff:1.2.3.4/96", "2001:DB8::1/64",
	"reject.example/x", "passed. and then it", "it passed. and then it failed", "it passed. and/then",
	"。其中/8", "exists. no further", " and then 198.51.100.0/24", "and then x/y", "xn--bcher-kva/1",
	"v=spf1/2", "ab.c/d", "abcd/ef", "1234/5678", "a\x01bc/d", "käse.example/1", "\xff\xfe\xfd\xfc/1",
}

// TestPrefixMemoMatchesWorthRecording: for every prefix of each value,
// with each vocabulary, the memo's answers are worthRecording's.
func TestPrefixMemoMatchesWorthRecording(t *testing.T) {
	missed, v4 := 0, 0
	for _, v := range prefixMemoVocabularies() {
		for _, g := range prefixMemoValues {
			m := checkPrefixMemo(t, v, g)
			if m.first >= 0 {
				missed++
			}
			if m.v4slash >= 0 {
				v4++
			}
		}
	}
	// The vocabulary's miss and the address are taken from the memo for
	// some of them.
	require.Positive(t, missed)
	require.Positive(t, v4)
}

// FuzzPrefixMemo: for any value, with each vocabulary, the memo's
// answers for its prefixes are worthRecording's.
func FuzzPrefixMemo(f *testing.F) {
	for _, g := range prefixMemoValues {
		f.Add(g)
	}
	vs := prefixMemoVocabularies()
	f.Fuzz(func(t *testing.T, g string) {
		for _, v := range vs {
			checkPrefixMemo(t, v, g)
		}
	})
}

// TestTextPrefixMemo: texts whose tokens give a prefix of a value at the
// value's offset (the address before a slash, a line's first token, a
// line that is its text's first piece) record what the reference
// records, with each vocabulary.
func TestTextPrefixMemo(t *testing.T) {
	texts := []string{
		"v=spf1 ip4:198.51.0.1/32 ip6:2001:db8:a::1/128 ip4:1.2.3.4./24 ip4:reject.example/x -all",
		"198.51.100.7/32 rest\nit passed. and then it failed\n1.2.3.4/24",
		"ip4:\v198.51.0.1/32 ip4:198.51.0.1\f/32 mx:a.example/1 x:y/z",
	}
	// Records shaped as those of the hostile SPF tree of the root
	// package's benchmarks: 20 ip4 and 20 ip6 mechanisms each.
	for n := range 3 {
		var b strings.Builder
		b.WriteString("v=spf1")
		for k := range 20 {
			fmt.Fprintf(&b, " ip4:198.51.%d.%d/32 ip6:2001:db8:%x::%x/128", n, k, n, k)
		}
		fmt.Fprintf(&b, " include:j%d.tree.example.com -all", n)
		texts = append(texts, b.String())
	}
	for _, vocab := range []bool{false, true} {
		for _, chunk := range []int{5, 255} {
			checkTextAgrees(t, vocab, "", texts, chunk, "198.51.0.1", "2001:db8:a::1", "1.2.3.4", "reject.example")
		}
	}
}

// checkGramSet fails t when the gramSet of text disagrees with a map of
// its windows on any window of text or of probes.
func checkGramSet(t *testing.T, text, probes string) {
	t.Helper()
	g := newGramSet(text)
	want := map[uint32]bool{}
	for i := 0; i+4 <= len(text); i++ {
		want[gram(text[i:])] = true
	}
	for _, s := range []string{text, probes, "\x00\x00\x00\x00"} {
		for i := 0; i+4 <= len(s); i++ {
			w := gram(s[i:])
			require.Equal(t, want[w], g.has(w), "window %q of %q", s[i:i+4], text)
		}
	}
}

// TestGramSetMatchesMap: the vocabulary's windows, in their table, are
// exactly those of the text, the window of four 0 bytes (a free slot's
// mark) included.
func TestGramSetMatchesMap(t *testing.T) {
	checkGramSet(t, "", "abcd")
	checkGramSet(t, "\x00\x00\x00\x00", "\x00\x00\x00\x01")
	checkGramSet(t, "abc\x00\x00\x00\x00def", "c\x00\x00\x00\x00d")
	var b strings.Builder
	for i := range 20000 {
		b.WriteByte(byte(i * 7919 % 251))
	}
	checkGramSet(t, b.String(), "abcdefghijklmnopqrstuvwxyz0123456789")
}

// FuzzGramSet: for any text and probe, the gramSet agrees with a map.
func FuzzGramSet(f *testing.F) {
	f.Add("The record is valid: v=spf1, -all", "v=spf1 ip4:1.2.3.4")
	f.Add("\x00\x00\x00\x00\x00", "\x00\x00\x00\x00")
	f.Fuzz(func(t *testing.T, text, probes string) {
		checkGramSet(t, text, probes)
	})
}
