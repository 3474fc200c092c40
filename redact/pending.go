package redact

import (
	"context"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// Answers recorded later. Beneath a resolver.Scan (ScanResolverThen), a
// lookup whose name and answer cannot take the Set past its bounds,
// whatever they hold, does not record them while it holds the Set's lock:
// it queues them (deferLookup), and they are recorded, in the order they
// were queued, before anything else changes or reads the Set's values
// (flush). A tree of lookups answered at once (a hostile SPF tree: 51
// long records) then queues its answers in parallel instead of waiting,
// one goroutine after another, for the lock each answer's recording holds
// for thousands of values; their recording runs once, on the goroutine
// that first reads the Set (Verify, at the end of a scan).
//
// Nothing recorded changes: the same values in the same order (the
// queue is recorded before every other value added), and the same answers
// handed on. An answer whose values could take the Set past MaxValues or
// MaxBytes, counted from an upper bound of them (answerBound) over the
// values recorded and queued so far, is recorded at once, after the
// queue, as it always was: it is the only kind that can fill the Set, and
// its lookup fails then (and every later one, as before, once the Set is
// full). Should the bound ever be wrong, the Set
// fails closed: values of a queued answer that do not fit mark it
// unguarded, so Verify refuses every output.

// pendingLookup is a lookup whose name and answer values a Set has queued
// (48 bytes: a scan queues dozens).
type pendingLookup struct {
	name    string
	records []resolver.Record
	more    *pendingMore // nil for an answer without aliases, not through a memo
}

// pendingMore holds what few answers have: aliases, or the forms of a
// memo.
type pendingMore struct {
	cnames []string
	forms  []string // the answer's memo (addRecorded), when memo is set
	memo   bool
}

// pendingChunk is the number of lookups a chunk of the queue holds: the
// queue grows by chunks, none copied, rather than by doubling a slice.
const pendingChunk = 32

// ScanResolverThen is ResolverThen, for use beneath a resolver.Scan only:
// the Scan keeps each answer as it was handed on and gives its callers
// copies, so no answer changes after its lookup returns. then receives
// the answer the queue holds (its Records share their backing array) and
// must not change it. The values of an
// answer that cannot take the Set past its bounds are then recorded later
// (before the Set's values are next changed or read: Verify, Contains,
// Len, Bytes, or any value added), not under the lookup: see
// pendingLookup.
func (s *Set) ScanResolverThen(next resolver.Resolver, then func(context.Context, resolver.Answer)) resolver.Resolver {
	m, _ := next.(resolver.Memoizer)
	return &recorder{set: s, next: next, memo: m, then: then, later: true}
}

// deferLookup queues the lookup of name and its answer a (through memo,
// the answer's memo, when it has one), to be recorded by flush, when the
// Set is not overflowed and they cannot take it past its bounds with the
// values recorded and queued already; it reports whether it did.
func (s *Set) deferLookup(name string, a *resolver.Answer, memo any) bool {
	values, bytes, ok := plainBound(name)
	if !ok {
		return false
	}
	p := pendingLookup{name: name}
	if vals, isMemo := memo.(*recorded); isMemo && !vals.overflowed {
		p.more = &pendingMore{forms: vals.forms, memo: true}
		values += len(vals.forms)
		for _, f := range vals.forms {
			bytes += len(f)
		}
	} else {
		v, b, ok := answerBound(a)
		if !ok {
			return false
		}
		p.records = a.Records
		if len(a.CNAMEs) > 0 {
			p.more = &pendingMore{cnames: a.CNAMEs}
		}
		values, bytes = values+v, bytes+b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.overflowed || !s.fitsQueued(values, bytes) {
		return false
	}
	if k := len(s.pending) - 1; k < 0 || len(s.pending[k]) == pendingChunk {
		s.pending = append(s.pending, make([]pendingLookup, 0, pendingChunk))
	}
	k := len(s.pending) - 1
	s.pending[k] = append(s.pending[k], p)
	s.pendingValues += values
	s.pendingBytes += bytes
	return true
}

// fitsQueued reports whether recording the queue and then at most values
// more values of at most bytes bytes in all leaves the Set within its
// bounds at every step, duplicates (whose check needs room for one more
// value, and their length in bytes) included. Called with mu held.
func (s *Set) fitsQueued(values, bytes int) bool {
	v := s.store.count + s.pendingValues + values
	b := s.store.bytes + s.pendingBytes + bytes
	return v < MaxValues && b+MaxValueLen <= MaxBytes
}

// flush records the queued lookups, in order, as record would have at
// their lookups. Called with mu held, first by every method that adds or
// reads values. The queue is empty when it returns, whatever happened:
// a panic while it records (a bug in the recording, which ran beneath
// resolver.Scan's recover when answers were recorded at their lookups)
// leaves values unrecorded, so the Set is then unguarded and every output
// is refused (ErrUnguarded), and flush returns as if it had recorded them.
func (s *Set) flush() {
	if s.pendingValues == 0 {
		return
	}
	defer func() {
		if recover() != nil {
			s.unguarded = true
		}
		s.clearQueue()
	}()
	// Every value recorded is at least MinLen bytes long, so the queue
	// holds at most pendingBytes/MinLen of them, which is tighter than
	// pendingValues for texts of many short or empty tokens (1.3 KB of
	// ';' bounds 3,700 values and records a handful). The table grows by
	// segments past the reservation, as ever.
	s.store.reserveHash(s.store.count + min(s.pendingValues, s.pendingBytes/MinLen))
	for _, chunk := range s.pending {
		for i := range chunk {
			p := &chunk[i]
			s.add(p.name)
			switch {
			case p.more == nil:
				s.addAnswerValues(nil, p.records)
			case p.more.memo:
				s.recordForms(p.more.forms)
			default:
				s.addAnswerValues(p.more.cnames, p.records)
			}
		}
	}
	if s.overflowed {
		// Not reached while answerBound is right (fitsQueued); if it is
		// not, a queued answer was handed on whose values did not all
		// fit: no output can be vouched for.
		s.unguarded = true
	}
}

// clearQueue empties the queue, keeping its first chunk for the next
// lookups queued and letting go of what the others held. Called with mu
// held.
func (s *Set) clearQueue() {
	for k := range s.pending {
		clear(s.pending[k])
		if k > 0 {
			s.pending[k] = nil
		}
	}
	if len(s.pending) > 0 {
		s.pending = s.pending[:1]
		s.pending[0] = s.pending[0][:0]
	}
	s.pendingValues, s.pendingBytes = 0, 0
}

// rlockSettled takes the read lock of a Set whose queue is empty,
// recording the queued lookups first (flush) when there are some: for a
// method that reads the Set's values under the read lock. A read with
// nothing queued (every one after the first) takes no write lock.
func (s *Set) rlockSettled() {
	s.mu.RLock()
	for s.pendingValues > 0 {
		s.mu.RUnlock()
		s.flushLocked()
		s.mu.RLock()
	}
}

// flushLocked is flush under the write lock, released however flush ends.
func (s *Set) flushLocked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
}

// plainBound is answerBound for one value given to add: one value of at
// most its length, when it is ASCII without an A-label (plainForm); ok is
// false otherwise (its Unicode form is another value, of a length not
// known here).
func plainBound(v string) (values, bytes int, ok bool) {
	if _, ok := plainForm(v); !ok {
		return 0, 0, false
	}
	return 1, len(v), true
}

// answerBound returns an upper bound of the number of values addAnswer
// records from a, and of their bytes; ok is false when a holds data it
// does not bound (a value that is not ASCII or holds an A-label, a zone,
// a TLSA record's data), which is then recorded at once.
func answerBound(a *resolver.Answer) (values, bytes int, ok bool) {
	add := func(v, b int, good bool) bool {
		values, bytes = values+v, bytes+b
		return good
	}
	for _, c := range a.CNAMEs {
		if !add(plainBound(c)) {
			return 0, 0, false
		}
	}
	for i := range a.Records {
		r := &a.Records[i]
		switch {
		case !add(plainBound(r.Target)):
			return 0, 0, false
		case len(r.RData) > 3, r.Addr.Zone() != "":
			return 0, 0, false
		case r.Addr.IsValid():
			// netip writes an address without a zone in at most 45
			// bytes, within addRecord's buffer.
			add(1, addrText, true)
		}
		if r.CAAValue != "" && !add(textBound(r.CAAValue, nil)) {
			return 0, 0, false
		}
		if len(r.TXT) > 0 && !add(textBound(r.JoinedTXT(), r.TXT)) {
			return 0, 0, false
		}
	}
	return values, bytes, true
}

// textBound returns an upper bound of the number of values addText
// records from text and pieces, and of their bytes, counted from a few
// byte counts rather than by reading its tokens: ok is false for a text
// addText records value by value through add (not ASCII, longer than
// maxText, holding an A-label), or whose URI tokens url.Parse may decode
// ('%').
//
// addText records each piece, the text, each line (at most one more than
// its line breaks), and each token (at most one more than the bytes that
// separate tokens, line breaks included): the token itself, and, from
// token, at most its part after the colon, that part up to the slash, and
// its part after the '@' (one of each per token, the last only for a
// token holding '@'), each a piece of the token; a token that url.Parse
// reads (a colon followed by '/', or '?' or '#') adds at most four more,
// its host, hostname, opaque part and that part's domain, each a piece of
// it too. Every value is a piece of the text (a URI's parts, without '%',
// as well), so its bytes are at most those of the span it is cut from.
func textBound(text string, pieces []string) (values, bytes int, ok bool) {
	if _, ascii := asciiCase(text); !ascii || len(text) > maxText || hasACE(text) {
		return 0, 0, false
	}
	uris := strings.Count(text, ":/") + strings.Count(text, "?") + strings.Count(text, "#")
	if uris > 0 && strings.IndexByte(text, '%') >= 0 {
		return 0, 0, false
	}
	ats := strings.Count(text, "@")
	// The lines and tokens are cut by addText's own predicates (all their
	// bytes are below 64), each byte counted by strings.Count, which is
	// several times faster than a loop over the text.
	var breaks, tokenBreaks int
	for c := range byte(len(asciiByte)) {
		switch {
		case isLineBreak(c):
			breaks += strings.Count(text, asciiByte[c:c+1])
		case isTokenBreak(c):
			tokenBreaks += strings.Count(text, asciiByte[c:c+1])
		}
	}
	lines := 1 + breaks
	tokens := 1 + breaks + tokenBreaks
	n := len(text)
	values = len(pieces) + 1 + lines + 3*tokens + ats + 4*uris
	for _, p := range pieces {
		bytes += len(p)
	}
	perToken := 3 // every token's bytes counted once for each kind of value
	if ats > 0 {
		perToken++
	}
	if uris > 0 {
		perToken += 4
	}
	bytes += n + n + perToken*n // the text, its lines, its tokens' values
	return values, bytes, true
}

// asciiByte holds the bytes 0 to 63 in order: asciiByte[c:c+1] is the
// string of byte c, without a conversion.
const asciiByte = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
	" !\"#$%&'()*+,-./0123456789:;<=>?"
