package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// bruteVocabulary answers Vocabulary.contains from its definition alone,
// with none of its machinery (windows, suffix array, candidate cuts): f
// is inside a word, or inside some sentences of one group joined with
// its separator, in any order and any number.
type bruteVocabulary struct {
	words  []string
	groups [][]string // per group, each sentence followed by the separator (a unit)
	last   [][]string // per group, the sentences (the last of a join has no separator)
}

func newBruteVocabulary(spec vocabSpec) *bruteVocabulary {
	b := &bruteVocabulary{}
	for _, w := range spec.words {
		b.words = append(b.words, strings.ToLower(w))
	}
	for _, j := range spec.joined[:min(len(spec.joined), 3)] {
		var units, sentences []string
		for _, s := range j.Sentences {
			s = strings.ToLower(s)
			units, sentences = append(units, s+j.Sep), append(sentences, s)
		}
		b.groups, b.last = append(b.groups, units), append(b.last, sentences)
	}
	return b
}

func (b *bruteVocabulary) contains(f string) bool {
	if len(f) < 4 || hasMarker(f) {
		return false
	}
	for _, w := range b.words {
		if strings.Contains(w, f) {
			return true
		}
	}
	for k, units := range b.groups {
		// f starts inside some unit (a sentence or its separator), then
		// runs through whole units into a prefix of one.
		for _, u := range units {
			for o := range len(u) {
				rest := u[o:]
				if len(f) <= len(rest) {
					if f == rest[:len(f)] {
						return true
					}
					continue
				}
				if f[:len(rest)] == rest && b.prefixOfJoin(k, f[len(rest):]) {
					return true
				}
			}
		}
	}
	return false
}

// prefixOfJoin reports whether f is a prefix of some sentences of group
// k joined with its separator.
func (b *bruteVocabulary) prefixOfJoin(k int, f string) bool {
	if f == "" {
		return true
	}
	for _, s := range b.last[k] {
		if len(f) <= len(s) && f == s[:len(f)] {
			return true
		}
	}
	for _, u := range b.groups[k] {
		if len(u) == 0 {
			continue
		}
		if len(f) <= len(u) {
			if f == u[:len(f)] {
				return true
			}
			continue
		}
		if f[:len(u)] == u && b.prefixOfJoin(k, f[len(u):]) {
			return true
		}
	}
	return false
}

// requireAgreesWithDefinition fails t when the vocabulary k finds f
// though its definition does not hold it (want): the guard would not
// record f. The other way (f not found though held: recorded, a false
// alarm) fails t only for a value of valid UTF-8 (the search across
// seams cuts f at whole runes, by design: a piece that starts or ends
// inside a rune of a sentence's end is not taken for a seam) and a
// vocabulary whose separators are at most one byte, as the service's
// are: a value that starts or ends inside a longer separator ("times.
// and" of " and then ") is not found.
func requireAgreesWithDefinition(t *testing.T, want, got bool, f string, k int) {
	t.Helper()
	if got {
		require.True(t, want, "contains(%q), vocabulary %d: found, though no word or join holds it", f, k)
		return
	}
	if utf8.ValidString(f) && adversarialVocabs[k].longestSep <= 1 {
		require.False(t, want, "contains(%q), vocabulary %d: not found, though a word or join holds it", f, k)
	}
}

// bruteValues returns values for vocabulary spec: every piece of up to
// maxLen bytes of random joins of its groups' sentences (and of its
// words), some with one byte changed.
func bruteValues(spec vocabSpec, rng *rand.Rand, maxLen int) []string {
	var texts []string
	texts = append(texts, spec.words...)
	for _, j := range spec.joined {
		for range 12 {
			var b strings.Builder
			for n := range 1 + rng.IntN(4) {
				if n > 0 {
					b.WriteString(j.Sep)
				}
				b.WriteString(j.Sentences[rng.IntN(len(j.Sentences))])
			}
			texts = append(texts, strings.ToLower(b.String()))
		}
	}
	var out []string
	for _, t := range texts {
		for i := range len(t) {
			for j := i + 4; j <= min(len(t), i+maxLen); j++ {
				out = append(out, t[i:j])
				if rng.IntN(8) == 0 {
					x := []byte(t[i:j])
					x[rng.IntN(len(x))] = "a.:/ 9\xe3\x80\x82"[rng.IntN(9)]
					out = append(out, string(x))
				}
			}
		}
	}
	return out
}

// TestAttackVocabularyAgainstDefinition: for the adversarial
// vocabularies of adversarial_vocab_test.go (separators longer than
// MinLen, separators that are prefixes of SPF values, sentence ends past
// ASCII, an invalid byte, a separator of four 0 bytes, one longer than
// MaxValueLen), Vocabulary.contains agrees with the vocabulary's
// definition on every piece of joined sentences. A value it wrongly
// finds is never recorded: the guard would let it through.
func TestAttackVocabularyAgainstDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k, spec := range adversarialVocabSpecs {
		if spec.words == nil && spec.joined == nil {
			continue
		}
		v, b := adversarialVocabs[k], newBruteVocabulary(spec)
		found := 0
		for _, f := range bruteValues(spec, rng, 40) {
			want := b.contains(f)
			requireAgreesWithDefinition(t, want, v.contains(f), f, k)
			if want {
				found++
			}
		}
		require.Positive(t, found)
	}
}

// FuzzAttackVocabularyAgainstDefinition: for any value, and any piece of
// it joined with sentences, each adversarial vocabulary agrees with its
// definition.
func FuzzAttackVocabularyAgainstDefinition(f *testing.F) {
	f.Add("ip4:198.51.100.7/32 x.", uint8(4), uint8(0), uint8(1), uint16(0), uint16(12))
	f.Add("1.2.3.4/24.1.2.3.4/8.", uint8(6), uint8(1), uint8(2), uint16(3), uint16(19))
	f.Add("记录存在。 straße", uint8(4), uint8(2), uint8(3), uint16(0), uint16(20))
	bs := make([]*bruteVocabulary, len(adversarialVocabSpecs))
	for k, spec := range adversarialVocabSpecs {
		bs[k] = newBruteVocabulary(spec)
	}
	f.Fuzz(func(t *testing.T, value string, vocab, a, c uint8, from, to uint16) {
		k := 1 + int(vocab)%(len(adversarialVocabSpecs)-1)
		spec, v, b := adversarialVocabSpecs[k], adversarialVocabs[k], bs[k]
		value = strings.ToLower(value)
		requireAgreesWithDefinition(t, b.contains(value), v.contains(value), value, k)
		joined := value
		if len(spec.joined) > 0 {
			j := spec.joined[int(a)%len(spec.joined)]
			joined = strings.ToLower(j.Sentences[int(c)%len(j.Sentences)]) + j.Sep + value + j.Sep + strings.ToLower(j.Sentences[int(a)%len(j.Sentences)])
		}
		i, e := int(from)%(len(joined)+1), int(to)%(len(joined)+1)
		if i > e {
			i, e = e, i
		}
		piece := joined[i:e]
		requireAgreesWithDefinition(t, b.contains(piece), v.contains(piece), piece, k)
	})
}
