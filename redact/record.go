package redact

import (
	"context"
	"encoding/hex"
	"net/netip"
	"net/url"
	"strings"

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
// stack of every lookup in flight.
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
}

// Lookup implements resolver.Resolver.
func (r *recorder) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	s := r.set
	var a resolver.Answer
	if r.memo == nil {
		a = r.next.Lookup(ctx, name, qtype)
		s.Add(name)
		s.addAnswer(a)
	} else {
		s.mu.RLock()
		v := s.vocabulary
		s.mu.RUnlock()
		var memo any
		a, memo = r.memo.LookupMemo(ctx, name, qtype, memoKey{v}, v.memoize)
		s.Add(name)
		if vals, ok := memo.(*recorded); ok && !vals.overflowed {
			s.addRecorded(vals.forms)
		} else {
			s.addAnswer(a)
		}
	}
	if r.then != nil {
		r.then(ctx, a)
	}
	return a
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
	out := &recorded{forms: make([]string, 0, len(tmp.values)), overflowed: tmp.overflowed}
	size := 48
	for f := range tmp.values {
		out.forms = append(out.forms, f)
		size += 16 + len(f)
	}
	return out, size
}

// addAnswer records the values of an answer: its aliases and its
// records' data.
func (s *Set) addAnswer(a resolver.Answer) {
	s.Add(a.CNAMEs...)
	for _, r := range a.Records {
		s.addRecord(r)
	}
}

// addRecorded records forms that a Set with s's vocabulary found worth
// recording (answerValues).
func (s *Set) addRecorded(forms []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range forms {
		if s.overflowed || !s.store(f) {
			return
		}
	}
}

func (s *Set) addRecord(r resolver.Record) {
	s.Add(r.Target)
	if r.Addr.IsValid() {
		s.Add(r.Addr.String())
	}
	if r.CAAValue != "" {
		s.AddText(r.CAAValue)
	}
	if len(r.RData) > 3 {
		// A TLSA record's association data, in the forms a text would
		// carry it (RFC 6698 §2.2 presents it in hexadecimal).
		data := hex.EncodeToString(r.RData[3:])
		s.Add(data, strings.ToUpper(data))
	}
	if len(r.TXT) > 0 {
		for _, t := range r.TXT {
			s.Add(t)
		}
		s.AddText(r.JoinedTXT())
	}
}

// AddText records a free text (a TXT record, a policy body, a CAA value)
// whole, line by line, and token by token (split at spaces, ";", ",",
// "="); tokens that look like a name, an address, a URI or a mailbox also
// give their host and mailbox parts. Add's filters apply to each.
func (s *Set) AddText(text string) {
	s.Add(text)
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		s.Add(line)
		for _, tok := range tokens(line) {
			s.addToken(tok)
		}
	}
}

// tokens splits a line at the separators of the TXT grammars
// (space, ';', ',', '=') and at a "key:" prefix such as "include:".
func tokens(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ';' || r == ',' || r == '='
	})
}

func (s *Set) addToken(tok string) {
	s.Add(tok) // every token; the vocabulary keeps the output's own words out
	if !valueLike(tok) {
		return
	}
	if u, err := url.Parse(tok); err == nil && u.Scheme != "" {
		s.Add(u.Host, u.Hostname(), u.Opaque)
		if at := strings.LastIndexByte(u.Opaque, '@'); at >= 0 {
			s.Add(u.Opaque[at+1:])
		}
	}
	if i := strings.IndexByte(tok, ':'); i >= 0 {
		// "include:_spf.example.net", "mx: mail.example.com", "ip4:192.0.2.1/24"
		rest := tok[i+1:]
		s.Add(rest)
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			s.Add(rest[:j])
		}
	}
	if at := strings.LastIndexByte(tok, '@'); at >= 0 {
		s.Add(tok[at+1:])
	}
}

// valueLike reports whether a token can carry a name, an address, a URI
// or a mailbox. Bare words and keys such as "mode:" or "v=spf1" cannot,
// and recording them would flag ordinary prose.
func valueLike(tok string) bool {
	tok = strings.TrimRight(tok, ":")
	if strings.ContainsAny(tok, ".@/") {
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
