package redact

import "strings"

// vocabSpec is a vocabulary given to both guards: words, and groups
// of joined sentences.
type vocabSpec struct {
	words  []string
	joined []Joined
}

// adversarialVocabSpecs are vocabularies adversarial to the guard's search: none,
// the plain words of differential_test.go, the joined catalogue of
// seam_test.go, and vocabularies adversarial to the prefix memo:
// separators longer than MinLen, a separator that is a prefix of the
// values an SPF record gives ("ip4:", "include:"), sentences that end in
// a rune past ASCII or in an invalid byte, a separator past ASCII, one in
// upper case (never lower-cased, so never matched), and one longer than
// MaxValueLen.
var adversarialVocabSpecs = []vocabSpec{
	{},
	{words: diffVocabulary},
	{words: []string{"reject", "ip4:", "ip6:", "198.51.100.7/32"}, joined: seamSentences},
	{words: []string{"v=spf1"}, joined: []Joined{{Sep: " and then ", Sentences: []string{"It passed.", "It failed 2 times.", "Addresses 198.51.100.0/24 and 2001:db8::/32."}}}},
	{words: []string{"include:", "_spf."}, joined: []Joined{
		{Sep: "ip4:198.", Sentences: []string{"51.100.7/32 x.", "a.", "0.2.1/24;"}},
		{Sep: "include:", Sentences: []string{"_spf.example.com.", "example.net.", "mail.example.org;"}},
		{Sep: "。 ", Sentences: []string{"记录存在。", "straße", "bad\xff", "ẞ"}},
	}},
	{words: []string{"mx: mail.example.com"}, joined: []Joined{
		{Sep: "X--", Sentences: []string{"abc.", "def."}},
		{Sep: "\x00\x00\x00\x00", Sentences: []string{"zero.", "nul."}},
		{Sep: strings.Repeat("s", MaxValueLen+3), Sentences: []string{"long.", "longer."}},
	}},
	{words: []string{"1.2.3.4", "1.2.3.4/24", "198.51", "2001:db8", "ip4:1.2.3.4/2"}, joined: []Joined{
		{Sep: "1.2.3.4/", Sentences: []string{"24.", "8.", "1.2.3.4/32."}},
		{Sep: "", Sentences: []string{"1.2.", "3.4/", "98.51."}},
	}},
}

// adversarialVocabs are adversarialVocabSpecs as Vocabularies (nil for
// the empty spec).
var adversarialVocabs = func() []*Vocabulary {
	var vs []*Vocabulary
	for _, spec := range adversarialVocabSpecs {
		if spec.words == nil && spec.joined == nil {
			vs = append(vs, nil)
			continue
		}
		vs = append(vs, NewJoinedVocabulary(spec.words, spec.joined...))
	}
	return vs
}()
