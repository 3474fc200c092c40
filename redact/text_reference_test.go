package redact

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// refAddText is AddText as it was before texts were lowered once into the
// store and their tokens recorded as pieces of it: every line, token and
// part through Add, and url.Parse for every token that looks like a
// value. The faster path must record the same values in the same order.
func refAddText(s *refSet, text string) {
	s.Add(text)
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		s.Add(line)
		for _, tok := range tokens(line) {
			refAddToken(s, tok)
		}
	}
}

func refAddToken(s *refSet, tok string) {
	s.Add(tok)
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

// chunks cuts text into pieces of n bytes (a TXT record's
// character-strings), the last one shorter.
func chunks(text string, n int) []string {
	if n <= 0 {
		return []string{text}
	}
	var out []string
	for len(text) > n {
		out = append(out, text[:n])
		text = text[n:]
	}
	return append(out, text)
}

// checkTextAgrees records texts (as AddText, and as TXT records cut into
// chunks) in a Set and in the reference, and fails t when they disagree
// on the state or on a search of any of searches.
func checkTextAgrees(t *testing.T, vocab bool, allowed string, texts []string, chunk int, searches ...string) {
	t.Helper()
	for _, asRecord := range []bool{false, true} {
		p := newDiffPair(vocab)
		p.allow(allowed)
		for _, text := range texts {
			if asRecord {
				parts := chunks(text, chunk)
				p.got.addAnswer(resolver.Answer{Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: parts}}})
				p.want.Add(parts...)
				refAddText(p.want, text)
				continue
			}
			p.got.AddText(text)
			refAddText(p.want, text)
		}
		all := append([]string{}, searches...)
		for _, text := range texts {
			all = append(all, text)
			all = append(all, tokens(text)...)
		}
		p.check(t, nil, all...)
	}
}

// TestTextDifferential: SPF, DMARC, TLS-RPT and MTA-STS texts, URIs with
// and without a host, query or fragment, A-labels, control characters,
// upper case and non-ASCII text give the same values as the reference.
func TestTextDifferential(t *testing.T) {
	texts := []string{
		"v=spf1 ip4:192.0.2.7/24 ip4:198.51.100.0/24 ip6:2001:DB8:7::/48 include:_spf7.Provider.example.net a mx ~all",
		"v=DMARC1; p=reject; rua=mailto:dmarc-reports@receiver.example.net,mailto:agg@example.com!10m; ruf=mailto:f@x.example?subject=a#frag",
		"v=TLSRPTv1; rua=mailto:tlsrpt@receiver.example.net,https://report.example.net/v1/tlsrpt,https://user:pw@[2001:db8::1]:8443/x",
		"version: STSv1\nmode: enforce\r\nmx: mail.example.com\nmx: *.mx.provider.example.net.\nmax_age: 604800\n",
		"include:xn--bcher-kva.example. redirect=XN--BCHER-KVA.example exp=%{d}.example",
		"mailto:a@b@c.example 1abc:def.example +x:y.example _u:v.example :lead.example x:/path.example x:%zz.example",
		"ctl:\x01bad.example tab\there.example:4 a.b.c.d. 203.0.113.9 203.0.113.9/32 10.0.0.1/033 2001:db8::/48 ::1 ::ffff:1.2.3.4",
		"服务器.例子 ip4:198.51.100.1 ÄÖÜ-größe.example mailto:x@服务器.example", "bad\xffutf8.example \xed\xa0\x80abc.example",
		"   v=spf1   ", "", "a", "...", strings.Repeat("long.example ", 100),
	}
	for _, vocab := range []bool{false, true} {
		for _, chunk := range []int{0, 1, 7, 255} {
			t.Run(fmt.Sprintf("vocabulary=%v/chunk=%d", vocab, chunk), func(t *testing.T) {
				checkTextAgrees(t, vocab, "receiver.example.net", texts, chunk, "x mail.example.com y", "bücher.example")
			})
		}
	}
}

// TestTextDifferentialOverflow fills both Sets through AddText past
// MaxValues: they must stop at the same value.
func TestTextDifferentialOverflow(t *testing.T) {
	var b strings.Builder
	for i := range MaxValues / 2 {
		fmt.Fprintf(&b, " ip4:198.%d.%d.1/32 ip6:2001:db8:%x::1/128 include:h%d.example", i/250, i%250, i, i)
	}
	checkTextAgrees(t, true, "", []string{b.String()}, 255, "ip4:198.0.3.1/32", "h4000.example", "2001:db8:7ff::1")
}

// TestTextDifferentialPastMaxText: texts longer than maxText, whose
// values the Set copies one by one rather than record as pieces of the
// text, in lower case and not, with values at their start, past the
// offsets an entry holds, and at their end, as AddText and as a TXT
// record; and the same texts a byte under maxText (read as pieces).
func TestTextDifferentialPastMaxText(t *testing.T) {
	tail := "include:_spf.tail.example mailto:a@b.example"
	for _, size := range []int{maxText + 1, maxText - 1} {
		for _, head := range []string{"head.example ip4:192.0.2.1/24", "Head.Example IP4:192.0.2.2/24 https://h.example/p?q"} {
			text := head + strings.Repeat(" ", size-len(head)-len(tail)) + tail
			require.Len(t, text, size)
			for _, asRecord := range []bool{false, true} {
				p := newDiffPair(false)
				if asRecord {
					parts := chunks(text, 1<<20)
					p.got.addAnswer(resolver.Answer{Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: parts}}})
					p.want.Add(parts...)
				} else {
					p.got.AddText(text)
				}
				refAddText(p.want, text)
				p.check(t, nil, head, tail, "x _spf.tail.example y", "A@B.EXAMPLE", "192.0.2.2/24", "h.example", "nothing.example")
				for _, b := range p.got.store.blocks {
					require.LessOrEqual(t, len(b), maxText, "a block an entry's offset cannot reach")
				}
			}
		}
	}
}

// FuzzTextDifferential: for any text, cut into any chunk size, the Set
// and the reference record the same values.
func FuzzTextDifferential(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.7/24 include:_spf.Example.net ~all", "", uint8(7), true)
	f.Add("v=DMARC1; rua=mailto:a@b.example?x#y,https://h.example/p", "b.example", uint8(0), false)
	f.Add("mx: xn--bcher-kva.example.\nmx: 服务器.例子", "", uint8(3), true)
	f.Fuzz(func(t *testing.T, text, allowed string, chunk uint8, vocab bool) {
		checkTextAgrees(t, vocab, allowed, []string{text}, int(chunk), text)
	})
}

// FuzzIsAddressBytes: the in-place reading of a dotted address agrees
// with netip.
func FuzzIsAddressBytes(f *testing.F) {
	for _, s := range []string{"192.0.2.1", "192.0.2.1/24", "01.2.3.4", "1.2.3.4/033", "1.2.3.4/", "1.2.3", "256.1.1.1", "1.2.3.4.5", "1..2.3", "1.2.3.4/32/1", "::1", "1.2.3.4/0", "1.2.3.4/00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		if _, err := netip.ParseAddr(s); err == nil {
			want = true
		} else if _, err := netip.ParsePrefix(s); err == nil {
			want = true
		}
		require.Equal(t, want, isAddressBytes([]byte(s)), "%q", s)
	})
}

// FuzzIsLower: a text isLower accepts is one strings.ToLower leaves as
// it is, and the other way round; appendLower writes strings.ToLower.
func FuzzIsLower(f *testing.F) {
	for _, s := range []string{"abc", "ABC", "服务器。", "bücher", "BÜCHER", "İ", "\xff", "\uFFFD", "ｆｕｌｌ", "ＦＵＬＬ", "𝐀", "𐐀", "ǅ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, strings.ToLower(s) == s, isLower(s), "%q", s)
		require.Equal(t, strings.ToLower(s) == s, isLower([]byte(s)), "%q", s)
		require.Equal(t, strings.ToLower(s), string(appendLower(nil, s)), "%q", s)
		require.Equal(t, strings.ToLower(s), string(appendLower([]byte("x"), []byte(s))[1:]), "%q", s)
	})
}

// FuzzScanJSON: scanJSON decides validity as json.Valid does, and in a
// valid document it finds the strings the former reading found (every
// quotation mark outside a string opens one).
func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":"mail.canary.example"}`, `["x","\"q\"",1,-0.5e+3,true,false,null,{}]`, `{"k\u00e9y":"服务器"}`,
		`{`, `"unterminated`, `[1,]`, `{"a" 1}`, `01`, `-`, `1.`, `1e`, `"\x"`, `"\u12g4"`, "\"a\x01\"", ` `, ``,
		`[[[[]]]]`, `{"a":{"b":[{"c":"d"}]}}`, " \t\n\r[ 1 , 2 ]\n", `nul`, `[true false]`, `"\ud800"`, "\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got [][2]int
		valid := scanJSON(body, func(from, end int, _ bool) { got = append(got, [2]int{from, end}) })
		require.Equal(t, json.Valid(body), valid, "%q", body)
		if !valid {
			return
		}
		var want [][2]int
		for i := 0; i < len(body); i++ {
			if body[i] == '"' {
				end, _ := stringEnd(body, i+1)
				want = append(want, [2]int{i + 1, end})
				i = end
			}
		}
		require.Equal(t, want, got, "%q", body)
	})
}

// TestScanJSONDepth: the nesting json.Valid accepts, and one more.
func TestScanJSONDepth(t *testing.T) {
	for _, n := range []int{maxJSONDepth, maxJSONDepth + 1} {
		body := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		require.Equal(t, json.Valid(body), scanJSON(body, func(int, int, bool) {}), "depth %d", n)
	}
}

// FuzzRuneAt: runeAt decodes as utf8.DecodeRune.
func FuzzRuneAt(f *testing.F) {
	for _, s := range []string{"服", "\xe1\x80\x80", "\xec\xbf\xbf", "\xed\x9f\xbf", "\xe1\x80", "\xe1\xc0\x80", "a", "\xff", "😀"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		r, n := runeAt(b, 0)
		wr, wn := utf8.DecodeRune(b)
		require.Equal(t, [2]int{int(wr), wn}, [2]int{int(r), n}, "%q", b)
	})
}
