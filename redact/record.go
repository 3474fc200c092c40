package redact

import (
	"context"
	"encoding/hex"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/mailauth/mailauth/resolver"
)

// Resolver returns a Resolver that records, into s, every name asked of
// next and every value in its answers. Place it beneath the per-scan
// resolver.Scan so each distinct answer is recorded once.
//
// When next is a resolver.Memoizer (a resolver.Cache shared across scans)
// the values an answer gives are worked out once per held answer, the
// first time a scan gets it from the cache, and kept with it as its memo:
// they live exactly as long as the answer (its TTL, its eviction), and
// every later scan records the same values without tokenizing the same
// provider records again. An answer fresh from the wire is recorded
// directly, as without a cache: most (a distinct domain's own records)
// are never asked again.
func (s *Set) Resolver(next resolver.Resolver) resolver.Resolver {
	return s.ResolverThen(next, nil)
}

// ResolverThen is Resolver, that also calls then (unless nil) with each
// answer, and the lookup's context, before returning it: what a caller
// would do in a wrapper of its own, without the wrapper's frame on the
// stack of every lookup in flight. Beneath a resolver.Scan, use
// ScanResolverThen.
func (s *Set) ResolverThen(next resolver.Resolver, then func(context.Context, resolver.Answer)) resolver.Resolver {
	m, _ := next.(resolver.Memoizer)
	return &recorder{set: s, next: next, memo: m, then: then}
}

// recorder is the Resolver of Set.ResolverThen: a type of its own rather
// than a resolver.Func, so that a lookup's stack holds one frame for it,
// not two.
type recorder struct {
	set  *Set
	next resolver.Resolver
	memo resolver.Memoizer // next as a Memoizer; nil when it is not one
	then func(context.Context, resolver.Answer)
	// later: the recorder is beneath a resolver.Scan, and an answer
	// that cannot take the Set past its bounds is queued (deferLookup)
	later bool
}

// Lookup implements resolver.Resolver. What the answer adds to the Set
// is recorded in record, not here: this frame is under every lookup in
// flight.
func (r *recorder) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	p := resolver.Begin(ctx, r, name, qtype)
	return p.Wait()
}

// Start implements resolver.Starter: the answer is recorded when it
// comes, on the goroutine that hands it on, and then handed to done.
func (r *recorder) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	got := func(a resolver.Answer, memo any) {
		if !r.recordSafely(ctx, name, &a, memo) {
			a = resolver.Fail(resolver.ReasonMalformed)
		}
		done(a)
	}
	if r.memo == nil {
		resolver.Start(ctx, r.next, name, qtype, func(a resolver.Answer) { got(a, nil) })
		return
	}
	v := r.set.vocab()
	if ms, ok := r.memo.(resolver.MemoStarter); ok {
		ms.StartMemo(ctx, name, qtype, memoKey{v}, v.memoize, got)
		return
	}
	go func() {
		handed := false
		defer func() {
			// A panic below, or in done above (here it would end the
			// process): the caller is answered ReasonMalformed if it
			// was not answered yet.
			if recover() != nil && !handed {
				done(resolver.Fail(resolver.ReasonMalformed))
			}
		}()
		a, memo := r.memo.LookupMemo(ctx, name, qtype, memoKey{v}, v.memoize)
		handed = true
		got(a, memo)
	}()
}

// recordSafely is record, and reports whether it returned: a panic in
// it (it runs on the goroutine that received the reply, where a panic
// would end the process) fails the answer instead, as the Scan above
// would.
func (r *recorder) recordSafely(ctx context.Context, name string, a *resolver.Answer, memo any) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	r.record(ctx, name, a, memo)
	return true
}

// vocab returns the Set's vocabulary.
func (s *Set) vocab() *Vocabulary {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.vocabulary
}

// record records the name asked and its answer a (through memo, the
// answer's memo, when it has one) in the Set, and hands a to then. An
// answer whose values may not be recorded becomes inconclusive. Not
// inlined (see Lookup).
//
//go:noinline
func (r *recorder) record(ctx context.Context, name string, a *resolver.Answer, memo any) {
	s := r.set
	if r.later && s.deferLookup(name, a, memo) {
		// Recorded before the Set's values are next changed or read:
		// they cannot take it past its bounds (see pendingLookup).
	} else {
		s.addName(name)
		if vals, ok := memo.(*recorded); ok && !vals.overflowed {
			s.addRecorded(vals.forms)
		} else {
			s.addAnswer(*a)
		}
		if s.Overflowed() {
			// Values of this answer (or of the name) may not be
			// recorded: it is never handed out, so nothing unguarded
			// reaches a check.
			*a = resolver.Fail(resolver.ReasonBudgetExhausted)
		}
	}
	if r.then != nil {
		r.then(ctx, *a)
	}
}

// memoKey tells the memos of answers recorded against one Vocabulary.
type memoKey struct{ v *Vocabulary }

// recorded is the memo of an answer: the comparison forms a Set with the
// vocabulary records from it.
type recorded struct {
	forms      []string
	overflowed bool // past a Set's bounds on its own: recorded directly instead
}

// memoize is answerValues for v, as a Memoizer's memo function (a method
// value: no closure allocated per lookup).
func (v *Vocabulary) memoize(a resolver.Answer) (any, int) { return answerValues(v, a) }

// answerValues returns the memo of a for Sets using the vocabulary v, and
// its size in bytes.
func answerValues(v *Vocabulary, a resolver.Answer) (*recorded, int) {
	tmp := NewSet()
	tmp.vocabulary = v
	tmp.addAnswer(a)
	out := &recorded{forms: make([]string, 0, tmp.store.count), overflowed: tmp.overflowed}
	size := 48
	for e := range int32(tmp.store.count) {
		f := string(tmp.store.value(e))
		out.forms = append(out.forms, f)
		size += 16 + len(f)
	}
	return out, size
}

// addName records a looked-up name: Add, without marking the Set
// unguarded when it is full (the lookup fails instead).
func (s *Set) addName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	s.add(name)
}

// addAnswer records the values of an answer: its aliases and its
// records' data.
func (s *Set) addAnswer(a resolver.Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	s.addAnswerValues(a.CNAMEs, a.Records)
}

// addAnswerValues is addAnswer of an answer's aliases and records,
// called with mu held.
func (s *Set) addAnswerValues(cnames []string, records []resolver.Record) {
	s.add(cnames...)
	for _, r := range records {
		s.addRecord(r)
	}
}

// addRecorded records forms that a Set with s's vocabulary found worth
// recording (answerValues).
func (s *Set) addRecorded(forms []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	s.recordForms(forms)
}

// recordForms is addRecorded, called with mu held.
func (s *Set) recordForms(forms []string) {
	for _, f := range forms {
		if s.overflowed || !s.recordForm(f, false) {
			return
		}
	}
}

// addrText is the room addRecord writes an address into: netip writes
// one without a zone in at most 45 bytes (an IPv4-mapped IPv6 address).
// answerBound counts an address as this many bytes.
const addrText = 64

// addRecord records the values of one record. Called with mu held.
func (s *Set) addRecord(r resolver.Record) {
	s.add(r.Target)
	if r.Addr.IsValid() && !s.overflowed {
		var buf [addrText]byte
		s.addBytes(r.Addr.AppendTo(buf[:0]))
	}
	if r.CAAValue != "" {
		s.addText(r.CAAValue)
	}
	if len(r.RData) > 3 {
		// A TLSA record's association data, in the forms a text would
		// carry it (RFC 6698 §2.2 presents it in hexadecimal).
		data := hex.EncodeToString(r.RData[3:])
		s.add(data, strings.ToUpper(data))
	}
	if len(r.TXT) > 0 {
		s.addText(r.JoinedTXT(), r.TXT...)
	}
}

// addBytes is Add of one value given as ASCII bytes without spaces, a
// trailing dot or an A-label, in lower case (an address as netip writes
// it). Called with mu held.
func (s *Set) addBytes(b []byte) {
	b = b[:capLen(b)]
	if len(b) < MinLen {
		return
	}
	blk, off := s.store.reserve(len(b))
	copy(s.store.span(blk, off, len(b)), b)
	s.consider(blk, off, len(b), true)
}

// AddText records a free text (a TXT record, a policy body, a CAA value)
// whole, line by line, and token by token (split at spaces, ";", ",",
// "="); tokens that look like a name, an address, a URI or a mailbox also
// give their host and mailbox parts. Add's filters apply to each.
func (s *Set) AddText(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	s.addText(text)
	s.unguarded = s.unguarded || s.overflowed
}

// addText is AddText, called with mu held, after Add of pieces: the
// strings that text joins (a TXT record's character-strings), if any.
// An ASCII text (of at most maxText bytes) is lower-cased once into the
// store (or, already in lower case, read in place as a view of the
// store), and every value taken from it (a piece, itself, a line, a
// token, a token's host part) is recorded as a piece of those bytes: no
// copy per value. The bytes (or
// the view) are given back when none was recorded.
func (s *Set) addText(text string, pieces ...string) {
	if s.overflowed {
		return
	}
	src := textSource{s: s, text: text, blk: -1, ace: hasACE(text)}
	switch lower, ascii := asciiCase(text); {
	case !ascii || len(text) > maxText:
	case lower:
		if blk, ok := s.store.view(text); ok {
			src.blk = blk
			defer src.unview(s.store.count)
			break
		}
		fallthrough
	default:
		src.blk, src.off = s.store.reserve(len(text))
		lowerInto(s.store.span(src.blk, src.off, len(text)), text)
		s.store.take(src.blk, src.off+len(text))
		defer src.release(s.store.count)
	}
	// The text is recorded as each piece, whole, each line, and each
	// token. A span already recorded (a text of one piece, a text of
	// one line) is repeated with again: the same outcome, without
	// hashing and comparing the span again.
	var whole recordedAs
	var wholeN int
	at := 0
	for _, p := range pieces {
		as, n := src.valueAs(at, at+len(p))
		if len(p) == len(text) {
			whole, wholeN = as, n
		}
		at += len(p)
	}
	if len(pieces) == 1 && len(pieces[0]) == len(text) {
		src.again(whole, wholeN, 0, len(text))
	} else {
		whole, wholeN = src.valueAs(0, len(text))
	}
	lines := lineSplitter{text: text, cr: strings.IndexByte(text, '\r')}
	for i := 0; i < len(text); {
		a, b := lines.next(i)
		if a == b {
			break
		}
		if a == 0 && b == len(text) {
			src.again(whole, wholeN, a, b)
		} else {
			src.value(a, b)
		}
		for k := a; k < b; {
			ta, tb, sh := tokenAndShape(text[:b], k)
			if ta == tb {
				break
			}
			src.token(ta, tb, sh)
			k = tb
		}
		i = b
	}
}

// lineSplitter cuts a text into lines (runs without "\n" or "\r"),
// finding each line's end with strings.IndexByte rather than testing
// every byte: a text without "\r" (cr < 0, most) costs one search per
// line.
type lineSplitter struct {
	text string
	cr   int // the first "\r" at or after the last line's start, -1 when none
}

// next returns the bounds of the first line of the text from i: the
// first run that holds no isLineBreak byte; a == b when there is none.
func (l *lineSplitter) next(i int) (a, b int) {
	t := l.text
	for i < len(t) && isLineBreak(t[i]) {
		i++
	}
	a = i
	if l.cr >= 0 && l.cr < a {
		if l.cr = strings.IndexByte(t[a:], '\r'); l.cr >= 0 {
			l.cr += a
		}
	}
	b = len(t)
	if l.cr >= 0 {
		b = l.cr
	}
	if j := strings.IndexByte(t[a:b], '\n'); j >= 0 {
		b = a + j
	}
	return a, b
}

// textSource records values taken from one text: pieces of its
// lower-case bytes at off in block blk of the store, or (blk -1, a text
// that is not ASCII) through addValue.
type textSource struct {
	s        *Set
	text     string
	blk, off int
	ace      bool // text holds an A-label ("xn--" in any case)
	memo     prefixMemo
}

// unview drops the text's view when no value was recorded since the
// store held entries values.
func (src *textSource) unview(entries int) {
	if st := &src.s.store; st.count == entries {
		st.unview(src.blk)
	}
}

// release gives the text's bytes back to the store when no value was
// recorded since it held entries values, and nothing was stored after
// them.
func (src *textSource) release(entries int) {
	st := &src.s.store
	if st.count == entries && len(st.blocks[src.blk]) == src.off+len(src.text) {
		st.blocks[src.blk] = st.blocks[src.blk][:src.off]
	}
}

// value records text[i:j] as Add would. It reports false when the Set is
// full.
func (src *textSource) value(i, j int) bool {
	as, _ := src.valueAs(i, j)
	return as != refused
}

// valueAs is value, telling what it did (for again) and the length of
// the form; unknown when the value went through addValue (an A-label, a
// text that is not ASCII).
func (src *textSource) valueAs(i, j int) (recordedAs, int) {
	s := src.s
	if s.overflowed {
		return refused, 0
	}
	if src.blk < 0 {
		return unknownAs(s.addValue(src.text[i:j])), 0
	}
	t := src.text
	for i < j && isSpace(t[i]) {
		i++
	}
	for j > i && isSpace(t[j-1]) {
		j--
	}
	if j > i && t[j-1] == '.' {
		j--
	}
	if src.ace && hasACE(t[i:j]) {
		return unknownAs(s.addValue(t[i:j])), 0 // the Unicode form too
	}
	n := capLen(t[i:j])
	if n < MinLen {
		return skipped, 0
	}
	return s.considerAs(src.blk, src.off+i, n, true, &src.memo), n
}

// unknown is what valueAs reports for a value recorded through addValue:
// a repeat must go through it again.
const unknown recordedAs = -1

func unknownAs(ok bool) recordedAs {
	if ok {
		return unknown
	}
	return refused
}

// again repeats value(i, j), which did as with a form of n bytes: a form
// in the store is not looked up again, a form not worth recording is not
// considered again (both depend on the form alone), and only the check
// that the Set is not full is made, as Add would make it.
func (src *textSource) again(as recordedAs, n, i, j int) {
	switch {
	case src.s.overflowed:
	case as == kept:
		src.s.full(n)
	case as == unknown:
		src.value(i, j)
	}
}

// token records the token text[a:b], whose shape is sh, and, when it
// looks like it can carry a name, an address, a URI or a mailbox, its
// host and mailbox parts.
func (src *textSource) token(a, b int, sh tokenShape) {
	tok := src.text[a:b]
	src.value(a, b) // every token; the vocabulary keeps the output's own words out
	if !sh.valueLike(tok) {
		return
	}
	colon := sh.colon
	switch {
	case colon < 0:
		// No scheme: url.Parse gives nothing to record.
	case sh.query || strings.HasPrefix(tok[colon+1:], "/"):
		if u, err := url.Parse(tok); err == nil && u.Scheme != "" {
			src.s.add(u.Host, u.Hostname(), u.Opaque)
			if at := strings.LastIndexByte(u.Opaque, '@'); at >= 0 {
				src.s.add(u.Opaque[at+1:])
			}
		}
	case isScheme(tok[:colon]) && !sh.ctl:
		// url.Parse reads "scheme:opaque" with no host: the opaque part
		// is the rest of the token, recorded again just below, and so is
		// its mailbox's domain.
		restAs, restLen := src.valueAs(a+colon+1, b)
		at := sh.at
		var domAs recordedAs
		var domLen int
		if at > colon {
			domAs, domLen = src.valueAs(a+at+1, b)
		}
		src.again(restAs, restLen, a+colon+1, b)
		if sh.slash >= 0 {
			src.value(a+colon+1, a+sh.slash)
		}
		if at > colon {
			src.again(domAs, domLen, a+at+1, b)
		} else if at >= 0 {
			src.value(a+at+1, b)
		}
		return
	}
	if colon >= 0 {
		// "include:_spf.example.net", "mx: mail.example.com", "ip4:192.0.2.1/24"
		src.value(a+colon+1, b)
		if sh.slash >= 0 {
			src.value(a+colon+1, a+sh.slash)
		}
	}
	if sh.at >= 0 {
		src.value(a+sh.at+1, b)
	}
}

// tokenShape is what token reads of a token, in one pass over it
// (tokenAndShape, as it finds the token) rather than one search per question.
type tokenShape struct {
	colon int  // the first ':', -1 when none
	slash int  // the first '/' after colon, -1 when none (or no colon)
	at    int  // the last '@', -1 when none
	mark  bool // holds '.', '@' or '/' (see valueLike)
	query bool // holds '?' or '#'
	ctl   bool // holds an ASCII control character (see hasCTL)
}

// tokenAndShape returns the bounds of the first token of t from i (the
// first run that holds no isTokenBreak byte; a == b when there is none)
// and its tokenShape, in one pass over the token's bytes: every
// separator is a byte the shape reads more closely (below '@', not a
// digit), so the test for the token's end costs nothing for most of its
// bytes. The separators are ASCII, so cutting bytes is cutting runes
// (strings.FieldsFunc).
func tokenAndShape(t string, i int) (a, b int, sh tokenShape) {
	for i < len(t) && isTokenBreak(t[i]) {
		i++
	}
	a = i
	sh = tokenShape{colon: -1, slash: -1, at: -1}
	for ; i < len(t); i++ {
		c := t[i]
		if c > '@' && c != 0x7f || c >= '0' && c <= '9' {
			continue // a letter, a digit, '_', '~', or a byte past ASCII
		}
		switch {
		case isTokenBreak(c):
			return a, i, sh
		case c == ':':
			if sh.colon < 0 {
				sh.colon = i - a
			}
		case c == '/':
			sh.mark = true
			if sh.colon >= 0 && sh.slash < 0 {
				sh.slash = i - a
			}
		case c == '@':
			sh.mark = true
			sh.at = i - a
		case c == '.':
			sh.mark = true
		case c == '?' || c == '#':
			sh.query = true
		case c < 0x20 || c == 0x7f:
			sh.ctl = true
		}
	}
	return a, i, sh
}

// valueLike is valueLike(tok) for the token whose shape sh is: a token
// with a '.', '@' or '/' is, one without them or a ':' is not, and only
// the rest is read again.
func (sh tokenShape) valueLike(tok string) bool {
	switch {
	case sh.mark:
		return true
	case sh.colon < 0:
		return false
	}
	return valueLike(tok)
}

// hasByte reports whether s holds a, b or c (strings.ContainsAny without
// building a set per call: it runs for every token).
func hasByte(s string, a, b, c byte) bool {
	for i := 0; i < len(s); i++ {
		if x := s[i]; x == a || x == b || x == c {
			return true
		}
	}
	return false
}

// isScheme reports whether s is a URI scheme as url.Parse reads one: a
// letter, then letters, digits, '+', '-' or '.'.
func isScheme(s string) bool {
	if s == "" || s[0]|0x20 < 'a' || s[0]|0x20 > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// hasCTL reports whether s holds an ASCII control character, which
// url.Parse refuses.
func hasCTL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// hasACE reports whether s holds "xn--" in any case. It searches for
// "--" (strings.Index, many bytes at a time), then reads the two bytes
// before it.
func hasACE(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "--")
		if j < 0 {
			return false
		}
		if k := i + j; k >= 2 && s[k-1]|0x20 == 'n' && s[k-2]|0x20 == 'x' {
			return true
		}
		i += j + 1
	}
}

// isSpace reports whether the ASCII c is white space to strings.TrimSpace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// asciiCase reports whether s holds no upper-case ASCII letter, and
// whether it holds only ASCII bytes. It reads 8 bytes at a time.
func asciiCase(s string) (lower, ascii bool) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	lower = true
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&high != 0 {
			return false, false
		}
		// Every byte is below 0x80: adding to it carries into no other.
		// Its high bit is set by adding 0x80-'A' when it is 'A' or
		// above, and by adding 0x80-'Z'-1 when it is past 'Z'.
		if (w+(0x80-'A')*ones) & ^(w+(0x80-'Z'-1)*ones) & high != 0 {
			lower = false
		}
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return false, false
		case c >= 'A' && c <= 'Z':
			lower = false
		}
	}
	return lower, true
}

func isLineBreak(c byte) bool { return c == '\n' || c == '\r' }

// isTokenBreak reports whether c separates the tokens of a line: the
// separators of the TXT grammars (space, tab, ';', ',', '='), all below
// 64, as bits of one word.
func isTokenBreak(c byte) bool {
	const breaks uint64 = 1<<' ' | 1<<'\t' | 1<<';' | 1<<',' | 1<<'='
	return c < 64 && breaks>>c&1 != 0
}

// tokens splits a line at the separators of the TXT grammars
// (isTokenBreak).
func tokens(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r < 64 && isTokenBreak(byte(r)) })
}

// valueLike reports whether a token can carry a name, an address, a URI
// or a mailbox. Bare words and keys such as "mode:" or "v=spf1" cannot,
// and recording them would flag ordinary prose.
func valueLike(tok string) bool {
	tok = strings.TrimRight(tok, ":")
	if hasByte(tok, '.', '@', '/') {
		return true
	}
	if i := strings.IndexByte(tok, ':'); i >= 0 {
		_, err := netip.ParseAddr(tok[i+1:]) // "ip6:2001:db8::1"
		if err == nil {
			return true
		}
		_, err = netip.ParseAddr(tok)
		return err == nil
	}
	return false
}
