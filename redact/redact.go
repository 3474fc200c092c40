// Package redact is mailauth's leak guard. During a scan it records every
// sensitive value seen on the wire — queried names, answer data (TXT text
// and its tokens, MX/PTR/CNAME targets, addresses, CAA values), and values
// reported by the HTTPS fetch (policy text, MX patterns, URLs) — and it
// proves that an outgoing JSON document contains none of them.
//
// Collection happens at the boundaries (a Resolver wrapper and the fetch's
// observe hook), so protocol packages stay unaware of it. An explicit
// allowlist holds the values a response may echo: the normalized and
// Unicode domain, the DKIM selector, the sending IP and the DMARC policy
// domain.
//
// A Set never logs or returns the values it holds: errors and counts only.
package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"index/suffixarray"
	"math/bits"
	"net/netip"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Bounds of a Set. A hostile zone can publish tens of kilobytes of TXT
// per name; the guard must not grow with it (product choice: a scan's
// real values number in the dozens).
const (
	// MinLen is the shortest value a Set records. Shorter fragments ("mx",
	// "ca") are protocol words that would match ordinary text.
	MinLen = 4
	// MaxValueLen is the longest value recorded whole; a longer text is
	// still recorded line by line and token by token, and a longer
	// token (a large key) by its first MaxValueLen bytes, cut at a
	// character boundary: an output carrying the token carries them.
	MaxValueLen = 1024
	// MaxValues bounds the values one Set holds; past it, further values
	// are dropped and Overflowed reports true. A value costs an 8-byte
	// entry beside its text, so MaxBytes is the bound that matters; a
	// 50-include SPF tree of 40 addresses each (about 6,000 values)
	// fits.
	MaxValues = 8192
	// MaxBytes bounds the bytes of the values one Set holds (a piece of
	// a text stored once counts as often as it is a value), so that its
	// memory stays near MaxBytes times a small factor (8-byte entries,
	// their tables, and the texts whose pieces they are) whatever the
	// zones publish: a memory bound per scan; past it, further values
	// are dropped and Overflowed reports true. The scan's DNS data is
	// bounded by resolver.MaxScanBytes, the same size.
	MaxBytes = 512 << 10
)

// ErrLeak is returned by Verify when a recorded value was found.
var ErrLeak = errors.New("redact: sensitive value in output")

// ErrUnguarded is returned by Verify when a value given to Add or AddText
// was dropped because the Set was full: the Set cannot vouch for an
// output that may carry it. (An answer read through Resolver whose
// values did not fit is never handed out: the lookup fails instead. An
// answer queued beneath ScanResolverThen is handed out before its values
// are recorded; should they not all fit, which its bound rules out, or
// should recording them fail, the Set is unguarded too and every output
// is refused.)
var ErrUnguarded = errors.New("redact: a value was not recorded (the guard was full)")

// Set holds the sensitive values of one scan. It is safe for concurrent
// use. The zero value is not usable; call NewSet.
type Set struct {
	mu         sync.RWMutex
	store      valueStore
	allow      map[string]struct{}
	generated  []string // lower-case values the service produced itself, see Generated
	vocabulary *Vocabulary
	scratch    []byte // keys of the vocabulary's lookups
	overflowed bool
	unguarded  bool // a value given to Add or AddText, or of a queued answer, was dropped, see Verify

	// Lookups queued to be recorded (see pendingLookup), and an upper
	// bound of the values and bytes they hold.
	pending       [][]pendingLookup // chunks of pendingChunk lookups
	pendingValues int
	pendingBytes  int
}

// NewSet returns an empty Set.
func NewSet() *Set {
	return &Set{allow: map[string]struct{}{}}
}

// Vocabulary is the fixed text an output is made of (a message catalogue,
// field names, enum words), prepared once and shared by every Set. A value
// found inside it is not recorded: the output can only contain it because
// the service wrote it, so finding it there proves nothing, and recording
// it would flag every response that uses the word ("v=STSv1", "-all",
// "reject"). Sentences the output joins one after another (Joined) are
// known as such: a value spanning the seam where two of them meet
// ("。其" where one Chinese sentence ends and the next begins, "pass. Of"
// in English) is in the vocabulary too. It is safe for concurrent use.
type Vocabulary struct {
	index  *suffixarray.Index // of the lower-case texts, each between its group's markers
	grams  gramSet            // every 4-byte window of the texts, a quick negative test
	groups []joinGroup

	anyLast    [utf8.RuneSelf]bool // the groups' lastASCII, together
	longestSep int                 // bytes of the groups' longest separator

	found foundSet // values found in it, the output's own words, kept to answer them at once
}

// foundSet holds values found in a Vocabulary. They are pieces of its
// texts (a message catalogue, field names), never wire data: a value not
// found is not kept. At most maxFound are kept.
type foundSet struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

// maxFound bounds a foundSet: the words a scan's records and policies
// share with the output number in the dozens.
const maxFound = 4096

func foundHas[T byteString](s *foundSet, f T) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.m[string(f)]
	return ok
}

func foundAdd[T byteString](s *foundSet, f T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]struct{}{}
	}
	if len(s.m) < maxFound {
		s.m[string(f)] = struct{}{}
	}
}

// Joined is a group of sentences the output may join in any order, with
// Sep between two of them ("" for Chinese, " " for English).
type Joined struct {
	Sep       string
	Sentences []string
}

// joinGroup is a Joined group as indexed: each sentence stands between
// the markers start and end, and ends in one of the runes of last.
type joinGroup struct {
	sep        string
	start, end byte
	last       map[rune]bool
	lastASCII  [utf8.RuneSelf]bool // last, for the ASCII runes
	longest    int                 // bytes of the group's longest sentence
}

// wordMark separates the plain texts of a Vocabulary; the groups' markers
// follow it. No marker can occur in a value that is looked up.
const wordMark = 0x01

// maxSeamCuts bounds the sentence ends a value may hold for the seam test
// (each is a candidate cut, tried against the others); a value with more
// is recorded.
const maxSeamCuts = 64

// NewVocabulary prepares texts as a Vocabulary.
func NewVocabulary(texts ...string) *Vocabulary {
	return NewJoinedVocabulary(texts)
}

// NewJoinedVocabulary prepares words (found anywhere inside them) and
// groups of joined sentences (found inside one sentence, or across the
// seams of any sequence of them joined with the group's separator) as a
// Vocabulary. At most 3 groups.
func NewJoinedVocabulary(words []string, joined ...Joined) *Vocabulary {
	var b strings.Builder
	for _, w := range words {
		b.WriteByte(wordMark)
		b.WriteString(strings.ToLower(w))
	}
	b.WriteByte(wordMark)
	v := &Vocabulary{}
	for k, j := range joined[:min(len(joined), 3)] {
		g := joinGroup{sep: j.Sep, start: byte(wordMark + 1 + 2*k), end: byte(wordMark + 2 + 2*k), last: map[rune]bool{}}
		for _, t := range j.Sentences {
			t = strings.ToLower(t)
			if r := lastRune(t); r != 0 {
				g.last[r] = true
				if r < utf8.RuneSelf {
					g.lastASCII[r] = true
				}
			}
			g.longest = max(g.longest, len(t))
			b.WriteByte(g.start)
			b.WriteString(t)
			b.WriteByte(g.end)
		}
		v.groups = append(v.groups, g)
		for r, ok := range g.lastASCII {
			v.anyLast[r] = v.anyLast[r] || ok
		}
		v.longestSep = max(v.longestSep, len(g.sep))
	}
	text := b.String()
	v.index = suffixarray.New([]byte(text))
	v.grams = newGramSet(text)
	return v
}

// lastRune returns the last rune of s, 0 when s is empty.
func lastRune(s string) rune {
	for i := len(s) - 1; i >= 0; i-- {
		if utf8.RuneStart(s[i]) {
			r, _ := utf8.DecodeRuneInString(s[i:])
			return r
		}
	}
	return 0
}

// contains reports whether the lower-case value f occurs in the
// vocabulary: inside one text, or across the seams of joined sentences.
// Most wire values (host names, keys) hold a 4-byte window that occurs
// nowhere in the vocabulary, and every piece of f that holds one is
// rejected without a lookup; the pieces left are looked up in the suffix
// array, in time that grows with their length and the logarithm of the
// vocabulary's, not with the vocabulary. The work is linear in the
// length of f plus a bounded number of lookups per sentence end in it.
func (v *Vocabulary) contains(f string) bool { return vocabularyHas(v, f, nil) }

// byteString is a value as the guard reads it: a string, or bytes of a
// Set's store, searched without a copy.
type byteString interface{ ~string | ~[]byte }

// vocabularyHas is Vocabulary.contains for a string or bytes; scratch,
// if not nil, is space for the keys looked up, kept for the next call.
func vocabularyHas[T byteString](v *Vocabulary, f T, scratch *[]byte) bool {
	if v == nil || len(f) < 4 {
		return false
	}
	first, miss := quickMiss(v, f)
	if miss {
		return false
	}
	return vocabularyHasPast(v, f, first, scratch)
}

// quickMiss is vocabularyHas's first test, of f of at least 4 bytes:
// first is the start of the first window of f found nowhere in the
// texts (len(f) when none), and miss reports that f is not in v
// because of it.
func quickMiss[T byteString](v *Vocabulary, f T) (first int, miss bool) {
	first = firstMissing(v, f)
	// The common case, a wire value: a window of f found nowhere in the
	// texts, with no place near it where f could cross a seam of any
	// group, lies inside one sentence's text: f is not there.
	return first, first < len(f) && !cutNearAny(v, f, first)
}

// vocabularyHasPast is vocabularyHas for f past quickMiss, which gave
// first and no miss.
func vocabularyHasPast[T byteString](v *Vocabulary, f T, first int, scratch *[]byte) bool {
	if hasMarker(f) {
		return false
	}
	if foundHas(&v.found, f) {
		return true
	}
	if vocabularySearch(v, f, first, scratch) {
		foundAdd(&v.found, f)
		return true
	}
	return false
}

// vocabularySearch is vocabularyHas past its quick tests: f, of at least
// 4 bytes and without a marker, is looked up in the suffix array, whole
// and across the seams of each group.
func vocabularySearch[T byteString](v *Vocabulary, f T, first int, scratch *[]byte) bool {
	m := missing(v, f, first)
	var key []byte
	if scratch == nil {
		key = make([]byte, 0, len(f)+2)
	} else {
		if cap(*scratch) < len(f)+2 {
			*scratch = make([]byte, 0, max(len(f)+2, 128))
		}
		key = (*scratch)[:0]
	}
	if m.first == len(f) && v.hasKey(append(key, f...)) {
		return true
	}
	for k := range v.groups {
		g := &v.groups[k]
		if m.first < len(f) && !cutsNear(g, f, m.first) || m.last < len(f) && !cutsNear(g, f, m.last) {
			// A window of f found nowhere in the texts, with no place
			// near it where f could cross a seam, lies inside one
			// sentence's text: f is not there.
			continue
		}
		var buf [maxSeamCuts + 2]int
		cuts := candidateCuts(g, f, buf[:0])
		if len(cuts) == 0 {
			continue
		}
		if acrossSeams(v, f, g, cuts, m, key) {
			return true
		}
	}
	return false
}

// has reports whether the byte string x occurs in the indexed text.
func (v *Vocabulary) has(x string) bool { return len(v.index.Lookup([]byte(x), 1)) > 0 }

// hasKey reports whether the byte string key occurs in the indexed text.
func (v *Vocabulary) hasKey(key []byte) bool { return len(v.index.Lookup(key, 1)) > 0 }

// hasGram reports whether the 4 bytes a, b, c, d occur in this order in
// the indexed text.
func (v *Vocabulary) hasGram(a, b, c, d byte) bool {
	return v.grams.has(uint32(a)<<24 | uint32(b)<<16 | uint32(c)<<8 | uint32(d))
}

// missingWindows locates, in a value f, the 4-byte windows that occur
// nowhere in a vocabulary's text: a piece of f holding one is not in the
// text. first is the start of the first such window, last of the last;
// both are len(f) when there is none.
type missingWindows[T byteString] struct {
	v           *Vocabulary
	f           T
	first, last int
}

// missing returns the missingWindows of f: two scans that stop at the
// first missing window from either end, so a wire value costs a few
// lookups, not one per byte.
func missing[T byteString](v *Vocabulary, f T, first int) missingWindows[T] {
	m := missingWindows[T]{v: v, f: f, first: first, last: len(f)}
	if m.first == len(f) {
		return m
	}
	for i := len(f) - 4; i >= m.first; i-- {
		if !v.grams.has(gram(f[i:])) {
			m.last = i
			break
		}
	}
	return m
}

// firstMissing returns the start of the first window of f that occurs
// nowhere in the texts, len(f) when there is none.
func firstMissing[T byteString](v *Vocabulary, f T) int {
	for i := 0; i+4 <= len(f); i++ {
		if !v.grams.has(gram(f[i:])) {
			return i
		}
	}
	return len(f)
}

// cutNearAny is cutsNear for any of the groups at once, from a table of
// the ASCII sentence ends of them all: false proves cutsNear false for
// each.
func cutNearAny[T byteString](v *Vocabulary, f T, p int) bool {
	if p < v.longestSep {
		for k := range v.groups {
			if g := &v.groups[k]; g.sep != "" && hasPrefix(f, g.sep) {
				return true
			}
		}
	}
	for c := max(p-v.longestSep+1, 1); c <= min(p+3, len(f)); c++ {
		if b := f[c-1]; b >= utf8.RuneSelf || v.anyLast[b] {
			return true
		}
	}
	return false
}

// clean reports whether f[a:b] holds no window that occurs nowhere in the
// vocabulary: false proves f[a:b] is not in the text. A prefix or a
// suffix of f is answered at once; another piece is scanned.
func (m missingWindows[T]) clean(a, b int) bool {
	switch {
	case b-a < 4 || m.first == len(m.f):
		return true
	case a == 0:
		return m.first > b-4
	case b == len(m.f):
		return m.last < a
	case m.first > b-4 || m.last < a:
		return true
	}
	for i := a; i+4 <= b; i++ {
		if !m.v.grams.has(gram(m.f[i:])) {
			return false
		}
	}
	return true
}

// hasMarker reports whether f holds a byte used as a marker.
func hasMarker[T byteString](f T) bool {
	for i := 0; i < len(f); i++ {
		if f[i] <= wordMark+6 {
			return true
		}
	}
	return false
}

// seamCuts returns the positions in f right after a rune that ends a
// sentence of g, the places where f may cross a seam, appended to buf;
// nil when there are more than maxSeamCuts.
func seamCuts[T byteString](f T, g *joinGroup, buf []int) []int {
	cuts := buf[:0]
	for i := 0; i < len(f); {
		r, n := rune(f[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(string(f[i:min(i+utf8.UTFMax, len(f))]))
		}
		i += n
		if r < utf8.RuneSelf && g.lastASCII[r] || r >= utf8.RuneSelf && g.last[r] {
			if cuts = append(cuts, i); len(cuts) > maxSeamCuts {
				return nil
			}
		}
	}
	return cuts
}

// cutsNear reports whether f may cross a seam of g at a place c with
// p-len(g.sep) < c < p+4, that is inside or next to the window of f at p
// (a separator before the cut, or the window straddling it): only there
// can a window that occurs nowhere in the texts be part of a value that
// crosses seams. It answers true when it cannot tell cheaply (f is not
// ASCII).
func cutsNear[T byteString](g *joinGroup, f T, p int) bool {
	lo := max(p-len(g.sep)+1, 0)
	hi := min(p+3, len(f))
	if lo == 0 && g.sep != "" && hasPrefix(f, g.sep) {
		return true // the cut at 0
	}
	for c := max(lo, 1); c <= hi; c++ {
		b := f[c-1]
		if b >= utf8.RuneSelf {
			return true
		}
		if g.lastASCII[b] {
			return true
		}
	}
	return false
}

// candidateCuts returns the places where f may cross a seam of g,
// appended to buf: 0 when f starts with the separator, then the positions
// right after a rune that ends a sentence of g (none past maxSeamCuts).
func candidateCuts[T byteString](g *joinGroup, f T, buf []int) []int {
	cuts := buf[:0]
	if g.sep != "" && hasPrefix(f, g.sep) {
		cuts = append(cuts, 0) // f starts at a seam, with the separator
	}
	if more := seamCuts(f, g, cuts[len(cuts):]); more != nil {
		cuts = cuts[:len(cuts)+len(more)]
	}
	return cuts
}

// acrossSeams reports whether f is the end of a sentence of g, then zero
// or more whole sentences, then the start of one, joined with g's
// separator: a value the output can hold only where sentences meet. cuts
// are f's candidateCuts for g, m its missingWindows; key is scratch space
// of capacity len(f)+2.
func acrossSeams[T byteString](v *Vocabulary, f T, g *joinGroup, cuts []int, m missingWindows[T], key []byte) bool {
	var ends [maxSeamCuts + 2]bool
	// ends[k]: f[:cuts[k]] is a sentence's end followed by whole
	// sentences, each after the separator (or f starts at a seam).
	for k, c := range cuts {
		if c == 0 || sentenceEnd(v, f[:c], g, m, key) {
			ends[k] = true
			continue
		}
		// A whole sentence between two cuts is at most g.longest bytes
		// after the separator: earlier cuts are too far to try.
		for j := k - 1; j >= 0 && c-cuts[j] <= len(g.sep)+g.longest; j-- {
			if ends[j] && wholeSentence(v, f, cuts[j], c, g, m, key) {
				ends[k] = true
				break
			}
		}
	}
	for k, c := range cuts {
		if !ends[k] {
			continue
		}
		if c == len(f) {
			return true
		}
		if !hasPrefix(f[c:], g.sep) {
			continue
		}
		if rest := c + len(g.sep); rest == len(f) || sentenceStart(v, f, rest, g, m, key) {
			return true
		}
	}
	return false
}

// sentenceEnd reports whether end is the end of a sentence of g.
func sentenceEnd[T byteString](v *Vocabulary, end T, g *joinGroup, m missingWindows[T], key []byte) bool {
	n := len(end)
	if !m.clean(0, n) || n >= 3 && !v.hasGram(end[n-3], end[n-2], end[n-1], g.end) {
		return false
	}
	return v.hasKey(append(append(key[:0], end...), g.end))
}

// sentenceStart reports whether f[from:] is the start of a sentence of g.
func sentenceStart[T byteString](v *Vocabulary, f T, from int, g *joinGroup, m missingWindows[T], key []byte) bool {
	s := f[from:]
	if !m.clean(from, len(f)) || len(s) >= 3 && !v.hasGram(g.start, s[0], s[1], s[2]) {
		return false
	}
	return v.hasKey(append(append(key[:0], g.start), s...))
}

// wholeSentence reports whether f[from:to] is g's separator and then one
// whole sentence of g.
func wholeSentence[T byteString](v *Vocabulary, f T, from, to int, g *joinGroup, m missingWindows[T], key []byte) bool {
	piece := f[from:to]
	if !hasPrefix(piece, g.sep) || len(piece) == len(g.sep) || !m.clean(from+len(g.sep), to) {
		return false
	}
	key = append(append(append(key[:0], g.start), piece[len(g.sep):]...), g.end)
	return v.hasKey(key)
}

// wholeAfter reports whether piece is g's separator and then one whole
// sentence of g.
func (v *Vocabulary) wholeAfter(piece string, g *joinGroup) bool {
	s, ok := strings.CutPrefix(piece, g.sep)
	return ok && s != "" && v.has(string(g.start)+s+string(g.end))
}

// Composes reports whether the lower-case text t is one sentence of a
// joined group, or several joined with the group's separator: text the
// service wrote from its catalogue alone.
func (v *Vocabulary) Composes(t string) bool {
	if v == nil || t == "" || hasMarker(t) {
		return false
	}
	for k := range v.groups {
		g := &v.groups[k]
		if v.has(string(g.start) + t + string(g.end)) {
			return true
		}
		var buf [maxSeamCuts + 1]int
		cuts := seamCuts(t, g, buf[:0])
		if len(cuts) == 0 || cuts[len(cuts)-1] != len(t) {
			continue
		}
		ok := make([]bool, len(cuts))
		for k, c := range cuts {
			ok[k] = v.has(string(g.start) + t[:c] + string(g.end))
			for j := 0; j < k && !ok[k]; j++ {
				ok[k] = ok[j] && v.wholeAfter(t[cuts[j]:c], g)
			}
		}
		if ok[len(ok)-1] {
			return true
		}
	}
	return false
}

// prefixBits is the size of a Set's filter of first two bytes: 4,096 bits
// (512 bytes per scan, where one bit per possible pair took 8 KB) give
// few false positives for the dozens to hundreds of values a scan
// records, and a false positive only costs a map lookup.
const prefixBits = 1 << 12

// prefixBit returns the word and bit of the filter for a value starting
// with the bytes a and b.
func prefixBit(a, b byte) (word int, bit uint64) {
	h := (uint(a)*131 + uint(b)) & (prefixBits - 1)
	return int(h / 64), 1 << (h % 64)
}

// hasPrefix is strings.HasPrefix for a string or bytes.
func hasPrefix[T byteString](f T, prefix string) bool {
	return len(f) >= len(prefix) && string(f[:len(prefix)]) == prefix
}

// gramSet is a set of 4-byte windows: an open-addressing table of them,
// behind a bit set of their hashes that answers most absent windows with
// one memory read.
type gramSet struct {
	bits   []uint64
	shift  uint
	table  []uint32 // the windows, a power of two long, at most half full; 0 when free
	mask   uint32   // len(table) - 1
	tshift uint     // 32 less the bits of mask
	zero   bool     // the window of four 0 bytes is in the set (0 marks a free slot)
}

// newGramSet returns the set of every 4-byte window of text.
func newGramSet(text string) gramSet {
	m := map[uint32]struct{}{}
	for i := 0; i+4 <= len(text); i++ {
		m[gram(text[i:])] = struct{}{}
	}
	n := 1 << 12 // bits: about 16 per window
	for n < 16*len(m) && n < 1<<24 {
		n <<= 1
	}
	g := gramSet{bits: make([]uint64, n/64), shift: uint(32 - bits.Len(uint(n-1)))}
	size := 16
	for size < 2*len(m) {
		size <<= 1
	}
	g.table, g.mask, g.tshift = make([]uint32, size), uint32(size-1), uint(32-bits.Len(uint(size-1)))
	for w := range m {
		h := g.hash(w)
		g.bits[h/64] |= 1 << (h % 64)
		if w == 0 {
			g.zero = true
			continue
		}
		i := g.slot(w)
		for g.table[i] != 0 {
			i = (i + 1) & g.mask
		}
		g.table[i] = w
	}
	return g
}

func (g *gramSet) hash(w uint32) uint32 { return (w * 0x9e3779b1) >> g.shift }

// slot returns the first slot of the table to probe for w.
func (g *gramSet) slot(w uint32) uint32 { return (w * 0x85ebca6b) >> g.tshift }

func (g *gramSet) has(w uint32) bool {
	if h := g.hash(w); g.bits[h/64]&(1<<(h%64)) == 0 {
		return false
	}
	if w == 0 {
		return g.zero
	}
	for i := g.slot(w); ; i = (i + 1) & g.mask {
		switch g.table[i] {
		case w:
			return true
		case 0:
			return false
		}
	}
}

// gram returns the first 4 bytes of s as one number.
func gram[T byteString](s T) uint32 {
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

// UseVocabulary makes s ignore values found in v. Call it before Add.
func (s *Set) UseVocabulary(v *Vocabulary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush() // queued answers are recorded against the vocabulary they came under
	s.vocabulary = v
}

// Add records values. Each is stored lower-cased, without a trailing dot,
// and also in Unicode form when it contains an A-label. Values shorter
// than MinLen or longer than MaxValueLen, made only of digits and
// punctuation (counts are the output's own) unless they are an IP address
// or prefix, or found in the vocabulary
// are ignored.
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	s.add(values...)
	s.unguarded = s.unguarded || s.overflowed
}

// add is Add, called with mu held.
func (s *Set) add(values ...string) {
	for _, v := range values {
		if s.overflowed || !s.addValue(v) {
			return // a full set stops at once: no more work per value
		}
	}
}

// addValue records the comparison forms of one value. It reports false
// when the Set is full. Called with mu held.
func (s *Set) addValue(v string) bool {
	if t, ok := plainForm(v); ok {
		t = t[:capLen(t)]
		if len(t) < MinLen {
			return true // not worth recording, whatever its letters
		}
		blk, off := s.store.reserve(len(t))
		lowerInto(s.store.span(blk, off, len(t)), t)
		return s.consider(blk, off, len(t), true)
	}
	lower, unicode := forms(v)
	return s.record(lower) && (unicode == "" || s.record(unicode))
}

// capLen is the length of the part of f a Set records: all of it, or,
// past MaxValueLen, its first MaxValueLen bytes less those of a character
// the cut would split.
func capLen[T byteString](f T) int {
	if len(f) <= MaxValueLen {
		return len(f)
	}
	n := MaxValueLen
	for n > 0 && !utf8.RuneStart(f[n]) {
		n--
	}
	return n
}

// plainForm returns v without surrounding spaces and a trailing dot when
// v is ASCII without an A-label ("xn--" in any case): then its comparison
// form is that, lower-cased byte by byte, and there is no Unicode form.
func plainForm(v string) (string, bool) {
	t := strings.TrimSpace(v)
	for i := 0; i < len(t); i++ {
		if c := t[i]; c >= utf8.RuneSelf || c == '-' && i >= 2 && i+1 < len(t) && t[i+1] == '-' && t[i-2]|0x20 == 'x' && t[i-1]|0x20 == 'n' {
			return "", false
		}
	}
	return strings.TrimSuffix(t, "."), true
}

// lowerInto writes the ASCII t lower-cased into dst, of the same length.
func lowerInto(dst []byte, t string) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// record stores one comparison form f if it is worth recording. It
// reports false when the Set is full. Called with mu held.
func (s *Set) record(f string) bool { return s.recordForm(f, true) }

// recordForm copies the comparison form f into the store and considers
// it (see consider). Called with mu held.
func (s *Set) recordForm(f string, check bool) bool {
	f = f[:capLen(f)]
	if len(f) < MinLen {
		return true // not worth recording (a memo's forms never are)
	}
	blk, off := s.store.reserve(len(f))
	copy(s.store.span(blk, off, len(f)), f)
	return s.consider(blk, off, len(f), check)
}

// consider records the comparison form written at off in block blk of
// the store (already in use or just reserved), n bytes long, unless it is
// a duplicate or (when check is set) not worth recording. It reports
// false when the Set is full, as a form worth recording arrives: a
// duplicate counts, so a Set fills at the same call whatever the order of
// equal values. Called with mu held.
func (s *Set) consider(blk, off, n int, check bool) bool {
	as := s.considerAs(blk, off, n, check, nil)
	return as != refused
}

// What considering a form did, so that a repeat of the same form can be
// answered without looking it up again.
type recordedAs int8

const (
	refused recordedAs = iota // the Set is full
	skipped                   // not worth recording: a repeat does nothing
	kept                      // in the store: a repeat only checks that the Set is not full
)

// considerAs is consider, telling what it did. memo, if not nil, is
// the prefixMemo of the text whose bytes block blk holds (see
// worthRecordingAt).
func (s *Set) considerAs(blk, off, n int, check bool, memo *prefixMemo) recordedAs {
	f := s.store.span(blk, off, n)
	h := hashOf(f)
	found, at := s.store.lookup(f, h)
	if found >= 0 {
		if s.full(n) {
			return refused
		}
		return kept
	}
	if check && !s.worthRecordingAt(f, off, memo) {
		return skipped
	}
	if s.full(n) {
		return refused
	}
	s.store.take(blk, off+n)
	s.store.addAt(blk, off, n, h, at)
	return kept
}

// full reports whether a value of n bytes no longer fits, and marks the
// Set overflowed then. Called with mu held.
func (s *Set) full(n int) bool {
	if s.store.count >= MaxValues || s.store.bytes+n > MaxBytes {
		s.overflowed = true
	}
	return s.overflowed
}

// worthRecording reports whether the comparison form f is worth
// recording: of a length a Set records, with a letter or an IP address
// or prefix, and not in the vocabulary.
func (s *Set) worthRecording(f []byte) bool { return s.worthRecordingAt(f, 0, nil) }

// prefixMemo is what worthRecordingAt read of a value of one text, whose
// lower-case bytes stay where they are while the text is recorded: a
// later value of the text at the same offset, no longer, is a prefix of
// it (the address before the slash of "198.51.100.1/24"), and two of its
// answers follow from this one without reading the prefix again.
type prefixMemo struct {
	off, n  int // the value's offset in the text's block and its length; n is 0 when none
	letter  int // the index of its first letter (letterAt), -1 when none
	v4slash int // the slash of a dotted IPv4 prefix (addressBytes), -1 when it is not one (or was not asked)
	first   int // the window that made quickMiss report a miss; -1 when it did not (or was not asked)
}

// worthRecordingAt is worthRecording of f, at off in the block of the
// text whose prefixMemo memo is (nil when f is not a value of a text).
//
// A value f at the offset of the memo's value g, no longer, is a prefix
// of g. Its first letter is g's when that lies within f (none
// otherwise). When g is a dotted IPv4 prefix and f is g up to its slash,
// f is an IPv4 address (addressBytes read it so). And when quickMiss proved g not in the vocabulary by the
// window at first, with first+4 <= len(f) and f at least as long as
// any separator, quickMiss proves f not in it alike: f's windows up to
// first are g's (the first missing one is the same), cutNearAny reads
// only the bytes before first+3, which f shares with g, and each
// group's separator, a prefix of g exactly when it is one of f.
func (s *Set) worthRecordingAt(f []byte, off int, memo *prefixMemo) bool {
	if len(f) < MinLen || len(f) > MaxValueLen {
		return false
	}
	prefix := memo != nil && memo.n > 0 && memo.off == off && len(f) <= memo.n
	letter := -1
	switch {
	case !prefix:
		letter = letterAt(f)
	case memo.letter < len(f):
		letter = memo.letter
	}
	if prefix {
		// The longer value's memo answers for more prefixes: keep it.
		if letter < 0 && memo.v4slash != len(f) && !isAddressBytes(f) {
			return false
		}
		v := s.vocabulary
		if v == nil || memo.first >= 0 && memo.first+4 <= len(f) && len(f) >= v.longestSep {
			return true
		}
		return !vocabularyHas(v, f, &s.scratch)
	}
	v4slash := -1
	if letter < 0 {
		var ok bool
		if ok, v4slash = addressBytes(f); !ok {
			if memo != nil {
				*memo = prefixMemo{off: off, n: len(f), letter: -1, v4slash: -1, first: -1}
			}
			return false
		}
	}
	if memo != nil {
		*memo = prefixMemo{off: off, n: len(f), letter: letter, v4slash: v4slash, first: -1}
	}
	v := s.vocabulary
	if v == nil {
		return true
	}
	first, miss := quickMiss(v, f)
	if miss {
		if memo != nil {
			memo.first = first
		}
		return true
	}
	return !vocabularyHasPast(v, f, first, &s.scratch)
}

// hasLetter reports whether s has a character other than an ASCII digit,
// punctuation or space (any byte of a multi-byte or invalid sequence is
// one).
func hasLetter[T byteString](s T) bool { return letterAt(s) >= 0 }

// letterAt returns the index of the first byte of s that makes hasLetter
// true, -1 when none.
func letterAt[T byteString](s T) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			return i
		}
	}
	return -1
}

// isAddress reports whether s is an IP address or prefix, which is all
// digits and punctuation yet a value to guard.
func isAddress(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	_, err := netip.ParsePrefix(s)
	return err == nil
}

// isAddressBytes is isAddress for bytes. A dotted IPv4 address or prefix
// (digits, dots and a slash) is read in place; anything else is handed
// to isAddress.
func isAddressBytes(f []byte) bool {
	ok, _ := addressBytes(f)
	return ok
}

// addressBytes is isAddressBytes, that also returns the index of the
// slash of a dotted IPv4 prefix read in place (-1 for anything else):
// the digits and dots before it are an IPv4 address.
func addressBytes(f []byte) (ok bool, v4slash int) {
	slash := -1
	for i, c := range f {
		switch {
		case c >= '0' && c <= '9' || c == '.':
		case c == '/':
			slash = i
		default:
			return isAddress(string(f)), -1
		}
	}
	if slash < 0 {
		return isIPv4(f), -1
	}
	addr, bits := f[:slash], f[slash+1:]
	if !isIPv4(addr) || len(bits) == 0 || len(bits) > 2 || len(bits) == 2 && bits[0] == '0' {
		return false, -1
	}
	n := 0
	for _, c := range bits {
		if c < '0' || c > '9' {
			return false, -1
		}
		n = 10*n + int(c-'0')
	}
	if n > 32 {
		return false, -1
	}
	return true, slash
}

// isIPv4 reports whether f, of digits and dots, is a dotted IPv4 address
// as netip.ParseAddr reads one: four fields of 1 to 3 digits, at most
// 255, without a leading zero.
func isIPv4(f []byte) bool {
	fields, val, digits := 1, 0, 0
	for i, c := range f {
		if c == '.' {
			if digits == 0 || i == len(f)-1 {
				return false
			}
			fields, val, digits = fields+1, 0, 0
			continue
		}
		if c < '0' || c > '9' || digits == 1 && val == 0 {
			return false
		}
		val, digits = 10*val+int(c-'0'), digits+1
		if val > 255 {
			return false
		}
	}
	return fields == 4 && digits > 0
}

// Bytes returns the bytes of the recorded values (at most MaxBytes).
func (s *Set) Bytes() int {
	s.rlockSettled()
	defer s.mu.RUnlock()
	return s.store.bytes
}

// isUnguarded reports whether a value given to Add or AddText, or a value
// of a queued answer (see pendingLookup), was dropped.
func (s *Set) isUnguarded() bool {
	s.rlockSettled()
	defer s.mu.RUnlock()
	return s.unguarded
}

// Overflowed reports whether values were dropped because the Set was full.
// Lookups queued to be recorded later (see ScanResolverThen) are not
// recorded first: they cannot fill it.
func (s *Set) Overflowed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.overflowed
}

// Allow marks values a response may echo (the caller's own inputs and the
// DMARC policy domain). A recorded value equal to an allowed one is not a
// leak, and a JSON string equal to an allowed value is not searched. In a
// longer string, an occurrence of a recorded value lying wholly inside a
// standalone occurrence of an allowed one (see standaloneName) is not a
// leak either: a sentence naming the domain "shop.example.com" tells its
// reader nothing the caller did not type, even when the sending IP's PTR
// name is "p.example.com". An occurrence reaching past the allowed one's
// edge, or inside an occurrence joined to a neighbour
// ("x.shop.example.com", "üshop.example.com"), is still found.
func (s *Set) Allow(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		lower, unicode := forms(v)
		for _, f := range [...]string{lower, unicode} {
			if f != "" {
				s.allow[f] = struct{}{}
			}
		}
	}
}

// allowedCover returns, for the lower-case t, the cover of the standalone
// occurrences in t of the allowed values (see standaloneName): cover[i]
// is the furthest end of an occurrence that starts at or before i (-1:
// none), so t[i:j] lies wholly inside one exactly when cover[i] >= j. It
// is nil when t holds none. Each value is searched for once from every
// position where it occurs: at most len(t) times its length. A value
// shorter than MinLen holds no recorded value, and is not searched.
func allowedCover(t string, allowed map[string]struct{}) []int {
	var cover []int
	for a := range allowed { // in any order: the cover does not depend on it
		for from := 0; from < len(t) && len(a) >= MinLen; {
			k := strings.Index(t[from:], a)
			if k < 0 {
				break
			}
			p := from + k
			if standaloneName(t, p, p+len(a)) {
				if cover == nil {
					cover = make([]int, len(t))
					for i := range cover {
						cover[i] = -1
					}
				}
				cover[p] = max(cover[p], p+len(a))
			}
			from = p + 1
		}
	}
	for i := 1; i < len(cover); i++ {
		cover[i] = max(cover[i], cover[i-1])
	}
	return cover
}

// standaloneName is standalone for an allowed value, a name or an
// address that a longer name may hold: a byte of a non-ASCII character
// next to it joins it too ("üshop.example.com" is another name).
func standaloneName(t string, i, j int) bool {
	return standaloneBy(t, i, j, func(c byte) bool { return isAlnum(c) || c >= utf8.RuneSelf })
}

// Generated marks values the service itself produced for the output: a
// timestamp it formatted, a duration or count it printed. A wire value can
// coincide with them by chance or by design (a TXT token "4T05" occurs in
// the timestamp "2026-11-24T05:00:00Z"; "8 checks" in a printed sentence),
// and matching them would let anyone who publishes DNS records raise the
// alarm and have a result withheld. In Contains, a string equal to a
// generated value is not searched, and a string is cut at every
// standalone occurrence of one (not touching a letter or digit, nor a
// '.', ':', '-', '_', '/' or '@' that joins it to one, as in an address
// or a name), the pieces around it searched one by one. Anything else in the string is still
// searched, so a real wire value next to a generated one is still found.
func (s *Set) Generated(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if v = strings.ToLower(v); v != "" {
			s.generated = append(s.generated, v)
		}
	}
}

// splitGenerated cuts the lower-case t at every standalone occurrence of
// a generated value and returns the pieces around them, as spans of t,
// which are then searched one by one: a value is found only inside one
// piece, so cutting can remove matches but never make one. Called with
// mu held (read).
func (s *Set) splitGenerated(t string) [][2]int {
	parts := [][2]int{{0, len(t)}}
	for _, g := range s.generated {
		var next [][2]int
		for _, p := range parts {
			next = cutStandaloneAt(t, p[0], p[1], g, next)
		}
		parts = next
	}
	return parts
}

// cutStandaloneAt splits the piece t[lo:hi] at the standalone
// occurrences in it of g (see standalone), dropping them, and appends
// the pieces to out as spans of t.
func cutStandaloneAt(t string, lo, hi int, g string, out [][2]int) [][2]int {
	piece := t[lo:hi]
	from, start := 0, 0
	for {
		i := strings.Index(piece[from:], g)
		if i < 0 {
			return append(out, [2]int{lo + start, hi})
		}
		at := from + i
		if !standalone(piece, at, at+len(g)) {
			from = at + 1 // an overlapping occurrence may still stand alone
			continue
		}
		out = append(out, [2]int{lo + start, lo + at})
		start, from = at+len(g), at+len(g)
	}
}

// standalone reports whether t[i:j] is not joined to a neighbouring letter
// or digit, directly or through joining characters ('.', ':', '-', '_',
// '/', '@'; "::" in "2001:db8::3").
func standalone(t string, i, j int) bool { return standaloneBy(t, i, j, isAlnum) }

// standaloneBy reports whether t[i:j] is not joined to a neighbouring
// byte that joins reports, directly or through joining characters.
func standaloneBy(t string, i, j int, joins func(byte) bool) bool {
	k := i - 1
	for k >= 0 && isJoiner(t[k]) {
		k--
	}
	if k >= 0 && joins(t[k]) {
		return false
	}
	k = j
	for k < len(t) && isJoiner(t[k]) {
		k++
	}
	return k >= len(t) || !joins(t[k])
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isJoiner(c byte) bool { return strings.IndexByte(".:-_/@", c) >= 0 }

// Len returns the number of recorded values.
func (s *Set) Len() int {
	s.rlockSettled()
	defer s.mu.RUnlock()
	return s.store.count
}

// Contains reports whether text contains any recorded value that is not
// allowed, compared case-insensitively.
func (s *Set) Contains(text string) bool {
	if text == "" {
		return false
	}
	if isLower(text) {
		return containsLowered(s, text)
	}
	var buf [256]byte
	return containsLowered(s, appendLower(buf[:0], text))
}

// runeAt decodes the rune that starts at t[i], as utf8.DecodeRune does:
// a 3-byte sequence led by 0xE1–0xEC (U+1000–U+CFFF, all of common CJK),
// which is always valid when its two continuation bytes are, is read in
// place.
func runeAt[T byteString](t T, i int) (rune, int) {
	if c := t[i]; c >= 0xe1 && c <= 0xec && i+2 < len(t) && t[i+1]&0xc0 == 0x80 && t[i+2]&0xc0 == 0x80 {
		return rune(c&0x0f)<<12 | rune(t[i+1]&0x3f)<<6 | rune(t[i+2]&0x3f), 3
	}
	return utf8.DecodeRuneInString(string(t[i:min(i+utf8.UTFMax, len(t))]))
}

// appendLower appends strings.ToLower(t) to dst: each rune lower-cased by
// unicode.ToLower, each byte of an invalid sequence written as U+FFFD.
func appendLower[T byteString](dst []byte, t T) []byte {
	var table *[1 << 16 / 64]uint64
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := runeAt(t, i)
		if table == nil {
			table = caseless()
		}
		if n > 1 && r < 1<<16 && table[r/64]&(1<<(r%64)) != 0 {
			dst = append(dst, t[i:i+n]...) // a caseless rune (CJK), as it is
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += n
	}
	return dst
}

// containsCut reports whether the lower-case t, cut at the generated
// values (see Generated), contains a recorded value that is not allowed
// and does not lie inside an allowed one (see Allow). Cutting can remove
// matches but never make one, so a t without any match is answered
// without cutting: the common case costs no allocation. Called with mu
// held (read).
func (s *Set) containsCut(t string) bool {
	if !s.containsRecorded(t) {
		return false
	}
	for _, g := range s.generated {
		if t == g {
			return false
		}
	}
	var cover []int // of the whole t (a cut does not make an occurrence stand alone), made once a piece has a match
	made := false
	for _, p := range s.splitGenerated(t) {
		piece := t[p[0]:p[1]]
		if !recordedIn(s, piece, nil, 0) {
			continue
		}
		if !made {
			cover, made = allowedCover(t, s.allow), true
		}
		if cover == nil || recordedIn(s, piece, cover, p[0]) {
			return true
		}
	}
	return false
}

// containsRecorded reports whether the lower-case t contains a recorded
// value that is not allowed. Called with mu held (read).
func (s *Set) containsRecorded(t string) bool { return recordedIn(s, t, nil, 0) }

// recordedIn reports whether the lower-case t, a string or bytes read
// without a copy, contains a recorded value that is not allowed, not
// counting an occurrence wholly inside an allowed value's (see Allow):
// when t is the piece at offset at of a text whose allowedCover is cover.
// Called with mu held (read).
func recordedIn[T byteString](s *Set, t T, cover []int, at int) bool {
	st := &s.store
	// Every recorded value is at least MinLen (4) bytes long, so a value
	// occurring in t starts with one of t's 4-byte windows: look up only
	// the values that start there.
	for i := 0; i+MinLen <= len(t); i++ {
		if w, bit := prefixBit(t[i], t[i+1]); st.first2[w]&bit == 0 {
			continue
		}
		g := gram(t[i:])
		c := st.chain(g)
		if c.n > longChain {
			excused := 0
			if cover != nil {
				excused = cover[at+i] - (at + i)
			}
			if found, _ := longAt(s, g, c, t, i, excused); found {
				return true
			}
			continue
		}
		if chainIn(s, c, t, i, cover, at) {
			return true
		}
	}
	return false
}

// chainIn reports whether a value of chain c, not allowed and not
// excused by cover, starts at t[i:], comparing each. Called with mu held
// (read).
func chainIn[T byteString](s *Set, c gramSlot, t T, i int, cover []int, at int) bool {
	st := &s.store
	for e := int32(c.head) - 1; e >= 0; e = st.at(e).next() {
		n := st.at(e).n()
		if len(t)-i < n || cover != nil && cover[at+i] >= at+i+n {
			continue // past t's end, or excused whatever it holds: not compared
		}
		if v := st.value(e); string(t[i:i+n]) == string(v) {
			if _, ok := s.allow[string(v)]; !ok {
				return true
			}
		}
	}
	return false
}

// Verify checks every string of a JSON document, keys and values, with
// Contains. It returns a decoding error for a document that is not JSON;
// else an error wrapping ErrLeak that counts the hits without naming
// them, whenever a recorded value is found (a full Set too); else
// ErrUnguarded when a value given to Add or AddText, or of an answer
// queued beneath ScanResolverThen, was dropped. It records the queued
// answers first.
//
// It reads the strings straight out of the document as it validates it
// (one pass, scanJSON, which decides validity as json.Valid does) instead
// of decoding it into maps and slices. Only a string with escapes is
// unquoted by the JSON decoder; any other is its own bytes (a scan's
// Chinese texts are read without a decoder).
func (s *Set) Verify(body []byte) error {
	n := 0
	var lower []byte
	var derr error
	valid := scanJSON(body, func(from, end int, escaped bool) {
		raw := body[from:end]
		var hit bool
		switch {
		case derr != nil:
		case escaped:
			var str string
			if err := json.Unmarshal(body[from-1:end+1], &str); err != nil {
				derr = err
				return
			}
			hit = s.Contains(str)
		default:
			// Without escapes, the bytes are the string's UTF-8:
			// lower-cased into one buffer in one pass.
			lower = appendLower(lower[:0], raw)
			hit = s.containsLower(lower)
		}
		if hit {
			n++
		}
	})
	switch {
	case !valid:
		return errors.New("redact: decode output: not valid JSON")
	case derr != nil:
		return fmt.Errorf("redact: decode output: %w", derr)
	case n > 0: // a recorded value found is a leak, full guard or not
		return fmt.Errorf("%w: %d string(s) affected", ErrLeak, n)
	case s.isUnguarded():
		return ErrUnguarded
	}
	return nil
}

// caseless is a bit set of the runes below U+10000 that unicode.ToLower
// leaves as they are (all of CJK), built on first use.
var caseless = sync.OnceValue(func() *[1 << 16 / 64]uint64 {
	var b [1 << 16 / 64]uint64
	for r := range rune(1 << 16) {
		if unicode.ToLower(r) == r {
			b[r/64] |= 1 << (r % 64)
		}
	}
	return &b
})

// isLower reports whether strings.ToLower leaves t as it is: valid UTF-8
// without a rune that has a lower-case mapping.
func isLower[T byteString](t T) bool {
	var table *[1 << 16 / 64]uint64
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				return false
			}
			i++
			continue
		}
		r, n := runeAt(t, i)
		if r == utf8.RuneError && n == 1 {
			return false // ToLower writes U+FFFD for it
		}
		if table == nil {
			table = caseless()
		}
		if r < 1<<16 && table[r/64]&(1<<(r%64)) == 0 || r >= 1<<16 && unicode.ToLower(r) != r {
			return false
		}
		i += n
	}
	return true
}

// containsLower is Contains for a text already lower-cased (strings.ToLower
// leaves it as it is), read without copying it into a string.
func (s *Set) containsLower(t []byte) bool { return containsLowered(s, t) }

// containsLowered is containsLower for a string or bytes.
func containsLowered[T byteString](s *Set, t T) bool {
	if len(t) == 0 {
		return false
	}
	s.rlockSettled()
	defer s.mu.RUnlock()
	if !recordedIn(s, t, nil, 0) {
		return false // the common case: no copy, no allocation
	}
	if _, ok := s.allow[string(t)]; ok {
		return false // an allowed text is never a leak; asked second, as it is rarely needed
	}
	if len(s.generated) == 0 && len(s.allow) == 0 {
		return true
	}
	return s.containsCut(string(t)) // cut at the service's own values (Generated), the caller's excused (Allow)
}

// forms returns the comparison forms of v: lower-case without a trailing
// dot, plus the Unicode form when v holds A-labels ("" otherwise). Two
// results rather than a slice: it runs for every recorded token.
func forms(v string) (lower, unicode string) {
	lower = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
	if strings.Contains(lower, "xn--") {
		if u, err := idna.Display.ToUnicode(lower); err == nil && u != lower {
			unicode = u
		}
	}
	return lower, unicode
}
