package redact

import (
	"context"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// Resolver returns a Resolver that records, into s, every name asked of
// next and every value in its answers. Place it beneath the per-scan
// resolver.Scan so each distinct answer is recorded once.
func (s *Set) Resolver(next resolver.Resolver) resolver.Resolver {
	return resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		a := next.Lookup(ctx, name, qtype)
		s.Add(name)
		s.Add(a.CNAMEs...)
		for _, r := range a.Records {
			s.addRecord(r)
		}
		return a
	})
}

func (s *Set) addRecord(r resolver.Record) {
	s.Add(r.Target)
	if r.Addr.IsValid() {
		s.Add(r.Addr.String())
	}
	if r.CAAValue != "" {
		s.AddText(r.CAAValue)
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
