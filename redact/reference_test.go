package redact

// The leak guard as it was at commit 6c47e6d, before its speed-ups
// (suffix-array vocabulary, hashed prefix filter, cut only on a match,
// Verify reading non-ASCII strings as bytes). It is kept here, renamed,
// only as the reference of the differential tests in
// differential_test.go: each change claims to be equivalent for every
// input, and these tests check that claim. The helpers the changes left
// as they were (hasLetter, standalone, ...) are the
// package's own. One rule has changed since, here as in the guard: an
// occurrence of a recorded value lying wholly inside a standalone
// occurrence of an allowed value in the whole text is not a leak
// (Set.Allow; here found by trying every place such an occurrence could
// start, refInsideAllowed, where the guard reads allowedCover). The cut
// at generated values and the neighbour tests are the reference's own
// copies (refCut, refStandalone), as they were before that change, so
// that a change to the guard's cut shows here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// refSet holds the sensitive values of one scan. It is safe for concurrent
// use. The zero value is not usable; call newRefSet.
type refSet struct {
	mu         sync.RWMutex
	values     map[string]struct{}
	byGram     map[uint32][]string  // recorded values by their first 4 bytes, for Contains
	first2     [1 << 16 / 64]uint64 // bit set of the values' first 2 bytes: skips most map lookups
	allow      map[string]struct{}
	generated  []string // lower-case values the service produced itself, see Generated
	vocabulary *refVocabulary
	bytes      int
	overflowed bool
}

// newRefSet returns an empty refSet.
func newRefSet() *refSet {
	return &refSet{values: map[string]struct{}{}, byGram: map[uint32][]string{}, allow: map[string]struct{}{}}
}

// refVocabulary is the fixed text an output is made of (a message catalogue,
// field names, enum words), prepared once and shared by every refSet. A value
// found inside it is not recorded: the output can only contain it because
// the service wrote it, so finding it there proves nothing, and recording
// it would flag every response that uses the word ("v=STSv1", "-all",
// "reject"). It is safe for concurrent use.
type refVocabulary struct {
	text  string              // lower-case, NUL-separated
	grams map[uint32]struct{} // every 4-byte window of text, a quick negative test
}

// newRefVocabulary prepares texts as a refVocabulary.
func newRefVocabulary(texts ...string) *refVocabulary {
	v := &refVocabulary{text: strings.ToLower(strings.Join(texts, "\x00")), grams: map[uint32]struct{}{}}
	for i := 0; i+4 <= len(v.text); i++ {
		v.grams[gram(v.text[i:])] = struct{}{}
	}
	return v
}

// contains reports whether the lower-case value f occurs in the
// vocabulary. Most wire values (host names, keys) fail the 4-gram test
// at once, without a scan of the whole text.
func (v *refVocabulary) contains(f string) bool {
	if v == nil || len(f) < 4 {
		return false
	}
	for i := 0; i+4 <= len(f); i++ {
		if _, ok := v.grams[gram(f[i:])]; !ok {
			return false
		}
	}
	return strings.Contains(v.text, f)
}

// UseVocabulary makes s ignore values found in v. Call it before Add.
func (s *refSet) UseVocabulary(v *refVocabulary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vocabulary = v
}

// Add records values. Each is stored lower-cased, without a trailing dot,
// and also in Unicode form when it contains an A-label. Values shorter
// than MinLen or longer than MaxValueLen, made only of digits and
// punctuation (counts are the output's own) unless they are an IP address
// or prefix, or found in the vocabulary
// are ignored.
func (s *refSet) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if s.overflowed {
			return // a full set stops at once: no more work per value
		}
		for _, f := range refForms(v) {
			if len(f) > MaxValueLen {
				// A large key's first MaxValueLen bytes, whole characters.
				n := MaxValueLen
				for n > 0 && !utf8.RuneStart(f[n]) {
					n--
				}
				f = f[:n]
			}
			if !s.worthRecording(f) {
				continue
			}
			if len(s.values) >= MaxValues || s.bytes+len(f) > MaxBytes {
				s.overflowed = true
				return
			}
			if _, dup := s.values[f]; !dup {
				s.bytes += len(f)
				s.values[f] = struct{}{}
				s.byGram[gram(f)] = append(s.byGram[gram(f)], f)
				p := uint16(f[0])<<8 | uint16(f[1])
				s.first2[p/64] |= 1 << (p % 64)
			}
		}
	}
}

func (s *refSet) worthRecording(f string) bool {
	if len(f) < MinLen || len(f) > MaxValueLen || !(hasLetter(f) || isAddress(f)) {
		return false
	}
	return !s.vocabulary.contains(f)
}

// Bytes returns the bytes of the recorded values (at most MaxBytes).
func (s *refSet) Bytes() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes
}

// Overflowed reports whether values were dropped because the refSet was full.
func (s *refSet) Overflowed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.overflowed
}

// Allow marks values a response may echo (the caller's own inputs and the
// DMARC policy domain). A recorded value equal to an allowed one is not a
// leak, and a JSON string equal to an allowed value is not searched; nor
// is an occurrence wholly inside a standalone occurrence of one.
func (s *refSet) Allow(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		for _, f := range refForms(v) {
			if f != "" {
				s.allow[f] = struct{}{}
			}
		}
	}
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
func (s *refSet) Generated(values ...string) {
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
func (s *refSet) splitGenerated(t string) [][2]int {
	parts := [][2]int{{0, len(t)}}
	for _, g := range s.generated {
		var next [][2]int
		for _, p := range parts {
			at := p[0] // each piece is followed by the occurrence of g cut after it
			for _, piece := range refCut(t[p[0]:p[1]], g) {
				next = append(next, [2]int{at, at + len(piece)})
				at += len(piece) + len(g)
			}
		}
		parts = next
	}
	return parts
}

// refCut splits t at the standalone occurrences of g (see refStandalone),
// dropping them.
func refCut(t, g string) []string {
	var out []string
	from, start := 0, 0
	for {
		i := strings.Index(t[from:], g)
		if i < 0 {
			return append(out, t[start:])
		}
		at := from + i
		if !refStandalone(t, at, at+len(g), false) {
			from = at + 1 // an overlapping occurrence may still stand alone
			continue
		}
		out = append(out, t[start:at])
		start, from = at+len(g), at+len(g)
	}
}

// refStandalone reports whether t[i:j] is not joined to a neighbouring
// letter or digit (or, for a name, a byte of a non-ASCII character),
// directly or through '.', ':', '-', '_', '/' or '@'.
func refStandalone(t string, i, j int, name bool) bool {
	joiner := func(c byte) bool { return strings.IndexByte(".:-_/@", c) >= 0 }
	joins := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || name && c >= 0x80
	}
	k := i - 1
	for k >= 0 && joiner(t[k]) {
		k--
	}
	if k >= 0 && joins(t[k]) {
		return false
	}
	k = j
	for k < len(t) && joiner(t[k]) {
		k++
	}
	return k >= len(t) || !joins(t[k])
}

// refInsideAllowed reports whether t[i:j] lies wholly inside a standalone
// occurrence (refStandalone, as a name) in t of one of allowed, trying
// every place one could start.
func refInsideAllowed(t string, i, j int, allowed map[string]struct{}) bool {
	for a := range allowed {
		for p := max(0, j-len(a)); p <= i && p+len(a) <= len(t); p++ {
			if t[p:p+len(a)] == a && refStandalone(t, p, p+len(a), true) {
				return true
			}
		}
	}
	return false
}

// Len returns the number of recorded values.
func (s *refSet) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values)
}

// Contains reports whether text contains any recorded value that is not
// allowed, compared case-insensitively.
func (s *refSet) Contains(text string) bool {
	if text == "" {
		return false
	}
	t := strings.ToLower(text)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.allow[t]; ok {
		return false
	}
	for _, g := range s.generated {
		if t == g {
			return false
		}
	}
	for _, p := range s.splitGenerated(t) {
		if s.containsRecorded(t, p[0], p[1]) {
			return true
		}
	}
	return false
}

// containsRecorded reports whether the piece whole[from:to] of the
// lower-case whole contains a recorded value that is not allowed and
// does not lie inside an allowed one in whole. Called with mu held
// (read).
func (s *refSet) containsRecorded(whole string, from, to int) bool {
	t := whole[from:to]
	// Every recorded value is at least MinLen (4) bytes long, so a value
	// occurring in t starts with one of t's 4-byte windows: look up only
	// the values that start there.
	for i := 0; i+MinLen <= len(t); i++ {
		if p := uint16(t[i])<<8 | uint16(t[i+1]); s.first2[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, v := range s.byGram[gram(t[i:])] {
			if _, ok := s.allow[v]; !ok && strings.HasPrefix(t[i:], v) && !refInsideAllowed(whole, from+i, from+i+len(v), s.allow) {
				return true
			}
		}
	}
	return false
}

// Verify checks every string of a JSON document, keys and values, with
// Contains. It returns an error wrapping ErrLeak that counts the hits
// without naming them, or a decoding error.
//
// It reads the strings straight out of the validated document instead of
// decoding it into maps and slices: outside its strings a valid JSON
// document holds no quotation mark, so each one opens a string. Only a
// string with escapes is unquoted by the JSON decoder.
func (s *refSet) Verify(body []byte) error {
	if !json.Valid(body) {
		return errors.New("redact: decode output: not valid JSON")
	}
	n := 0
	var lower []byte
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		end, escaped := stringEnd(body, i+1)
		raw := body[i+1 : end]
		var hit bool
		switch {
		case escaped || !isASCII(raw):
			var str string
			if err := json.Unmarshal(body[i:end+1], &str); err != nil {
				return fmt.Errorf("redact: decode output: %w", err)
			}
			hit = s.Contains(str)
		default:
			lower = asciiLower(lower[:0], raw)
			hit = s.containsLower(lower)
		}
		if hit {
			n++
		}
		i = end
	}
	if n > 0 {
		return fmt.Errorf("%w: %d string(s) affected", ErrLeak, n)
	}
	return nil
}

// containsLower is Contains for an ASCII text already lower-cased, read
// without copying it into a string.
func (s *refSet) containsLower(t []byte) bool {
	if len(t) == 0 {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.allow[string(t)]; ok {
		return false
	}
	if len(s.generated) > 0 { // cut at the service's own values (Generated)
		for _, g := range s.generated {
			if string(t) == g {
				return false
			}
		}
		for _, p := range s.splitGenerated(string(t)) {
			if s.containsRecorded(string(t), p[0], p[1]) {
				return true
			}
		}
		return false
	}
	for i := 0; i+MinLen <= len(t); i++ {
		if p := uint16(t[i])<<8 | uint16(t[i+1]); s.first2[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		g := uint32(t[i])<<24 | uint32(t[i+1])<<16 | uint32(t[i+2])<<8 | uint32(t[i+3])
		for _, v := range s.byGram[g] {
			if len(t)-i >= len(v) && string(t[i:i+len(v)]) == v {
				if _, ok := s.allow[v]; !ok && !refInsideAllowed(string(t), i, i+len(v), s.allow) {
					return true
				}
			}
		}
	}
	return false
}

// refForms returns the comparison forms of v: lower-case without a trailing
// dot, plus the Unicode form when v holds A-labels.
func refForms(v string) []string {
	v = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
	out := []string{v}
	if strings.Contains(v, "xn--") {
		if u, err := idna.Display.ToUnicode(v); err == nil && u != v {
			out = append(out, u)
		}
	}
	return out
}

// stringEnd returns the index of the quotation mark that closes the JSON
// string whose content starts at from, and whether the string holds an
// escape. body is valid JSON, so the closing mark exists.
func stringEnd(body []byte, from int) (end int, escaped bool) {
	for j := from; j < len(body); j++ {
		switch body[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return len(body) - 1, escaped
}

// isASCII reports whether b holds only ASCII bytes.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// asciiLower appends b lower-cased to dst; b is ASCII.
func asciiLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
