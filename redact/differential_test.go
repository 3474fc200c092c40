package redact

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// diffVocabulary is a small catalogue in both languages, with upper-case
// and non-ASCII text, so that the vocabulary filter has something to
// accept and something to refuse.
var diffVocabulary = []string{
	"The record is valid: v=spf1, -all, REJECT, quarantine, mode: enforce, max_age.",
	"检查记录有效，策略为 reject。", "İstanbul ẞtraße KELVIN", "v=STSv1\x00mx",
}

// diffPair is a Set and the reference (the guard at 6c47e6d) given the
// same calls.
type diffPair struct {
	got  *Set
	want *refSet
}

func newDiffPair(vocabulary bool) diffPair {
	p := diffPair{got: NewSet(), want: newRefSet()}
	if vocabulary {
		p.got.UseVocabulary(NewVocabulary(diffVocabulary...))
		p.want.UseVocabulary(newRefVocabulary(diffVocabulary...))
	}
	return p
}

func (p diffPair) add(v ...string)       { p.got.Add(v...); p.want.Add(v...) }
func (p diffPair) allow(v ...string)     { p.got.Allow(v...); p.want.Allow(v...) }
func (p diffPair) generated(v ...string) { p.got.Generated(v...); p.want.Generated(v...) }

// check fails t when the two disagree on the Set's state, on Contains of
// any of texts, or on Verify of a document holding texts (and of doc).
func (p diffPair) check(t *testing.T, doc []byte, texts ...string) {
	t.Helper()
	require.Equal(t, p.want.Len(), p.got.Len(), "Len, reference")
	require.Equal(t, p.want.Bytes(), p.got.Bytes(), "Bytes, reference")
	require.Equal(t, p.want.Overflowed(), p.got.Overflowed(), "Overflowed, reference")
	for _, text := range texts {
		require.Equal(t, p.want.Contains(text), p.got.Contains(text), "Contains(%q), reference", text)
		// The same text as a JSON string, raw (non-ASCII and invalid
		// UTF-8 bytes as they are) and escaped.
		for _, body := range [][]byte{rawJSONString(text), escapedJSONString(text)} {
			if body != nil {
				p.verifyAgree(t, body)
			}
		}
	}
	if doc != nil {
		p.verifyAgree(t, doc)
	}
}

func (p diffPair) verifyAgree(t *testing.T, body []byte) {
	t.Helper()
	g, w := p.got.Verify(body), p.want.Verify(body)
	if p.got.isUnguarded() {
		// A value given to Add was dropped (the reference drops it
		// alike): the guard refuses to vouch for any output, and reports
		// a recorded value it finds as a leak.
		// Output that is not JSON is refused as such first.
		switch {
		case w != nil && !errors.Is(w, ErrLeak):
			require.Equal(t, fmt.Sprint(w), fmt.Sprint(g), "Verify(%q) of a Set that dropped a value", body)
		case errors.Is(w, ErrLeak):
			require.ErrorIs(t, g, ErrLeak, "Verify(%q) of a Set that dropped a value, with a recorded one in it", body)
		default:
			require.ErrorIs(t, g, ErrUnguarded, "Verify(%q) of a Set that dropped a value", body)
		}
		require.True(t, p.got.Overflowed())
		return
	}
	require.Equal(t, fmt.Sprint(w), fmt.Sprint(g), "Verify(%q) = %v, reference %v", body, g, w)
	require.Equal(t, errors.Is(w, ErrLeak), errors.Is(g, ErrLeak), "Verify(%q) = %v, reference %v", body, g, w)
}

// rawJSONString quotes text without escaping anything but what JSON
// requires, so that bytes >= 0x80 (valid UTF-8 or not) stay raw; nil if
// text needs an escape (then escapedJSONString covers it).
func rawJSONString(text string) []byte {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 || c == '"' || c == '\\' {
			return nil
		}
	}
	return []byte(`["` + text + `"]`)
}

// escapedJSONString quotes text with \u escapes for control characters,
// quotation marks and backslashes, leaving other bytes raw.
func escapedJSONString(text string) []byte {
	var b strings.Builder
	b.WriteString(`{"k":"`)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < 0x20 || c == '"' || c == '\\' {
			fmt.Fprintf(&b, `\u%04x`, c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// TestDifferentialEdgeCases gives the guard and its reference the inputs
// the speed-ups could treat differently: NUL bytes, invalid UTF-8,
// upper-case non-ASCII whose lower case changes length, empty strings,
// values shorter than MinLen, values equal to an allowed or generated
// value, A-labels, and generated values around recorded ones.
func TestDifferentialEdgeCases(t *testing.T) {
	values := []string{
		"", " ", "abc", "abcd", "ABCD.", "mail.canary.example.", "203.0.113.9", "2001:db8::3", "198.51.100.0/24",
		"x\x00yz\x00w", "\x00\x00\x00\x00", "bad\xffutf8\xfe", "\xed\xa0\x80abc", "ÄÖÜ-größe", "İSTANBUL", "ẞtraße",
		"KELVIN", "xn--bcher-kva.example", "XN--BCHER-KVA.EXAMPLE.", "xn--zz", "bücher.example", "4t05",
		"2026", "v=spf1", "reject", "quarantine", "strasse", "服务器.例子", "服务器", "1234", "a1b2",
		"allowed.example", "generated-value", "allowed.example.evil",
	}
	texts := append([]string{
		"", "ABCD", "mail.CANARY.example", "x\x00yz\x00w and more", "bad\xffUTF8\xfe", "\xff\xfe\xfd\xfc",
		"BÜCHER.EXAMPLE", "xn--bcher-kva.example", "ÄÖÜ-GRÖSSE", "ÄÖÜ-GRÖẞE", "i̇stanbul", "İstanbul", "KELVIN",
		"2026-11-24T05:00:00Z", "generated-value", "at 4t05 we", "2026 abcd 2026", "allowed.example",
		"ALLOWED.EXAMPLE.", "allowed.example.evil", "服务器.例子 is here", "\xed\xa0\x80ABC", "a1b2c3",
		"198.51.100.0/24 and 203.0.113.9", "the value generated-value.", "generated-valuex",
	}, values...)
	for _, vocab := range []bool{false, true} {
		for _, gen := range [][]string{nil, {"2026", "4t05", "generated-value", "abcd", "", "ẞ"}} {
			t.Run(fmt.Sprintf("vocabulary=%v/generated=%d", vocab, len(gen)), func(t *testing.T) {
				p := newDiffPair(vocab)
				p.allow("allowed.example", "", "XN--BCHER-KVA.example")
				p.generated(gen...)
				p.add(values...)
				p.check(t, []byte(`{"a":["mail.canary.example","bücher.example"],"bad\xff":"x\u0000yz\u0000w"}`), texts...)
			})
		}
	}
}

// TestDifferentialOverflow fills both past MaxValues and past MaxBytes:
// they must stop at the same value and still agree on every search.
func TestDifferentialOverflow(t *testing.T) {
	t.Run("values", func(t *testing.T) {
		p := newDiffPair(true)
		var texts []string
		for i := range MaxValues + 10 {
			v := fmt.Sprintf("host%d.xn--bcher-kva.example", i)
			p.add(v)
			if i%97 == 0 {
				texts = append(texts, v, "bücher "+v)
			}
		}
		p.check(t, nil, texts...)
	})
	t.Run("bytes", func(t *testing.T) {
		p := newDiffPair(false)
		big := strings.Repeat("k", MaxValueLen-8)
		var texts []string
		for i := range MaxBytes/MaxValueLen + 10 {
			v := fmt.Sprintf("%s%08d", big, i)
			p.add(v)
			texts = append(texts, v[len(v)-40:], v)
		}
		p.check(t, nil, texts...)
	})
}

// FuzzDifferential: for any recorded, allowed and generated values and
// any searched text, the guard agrees with its reference.
func FuzzDifferential(f *testing.F) {
	f.Add("mail.canary.example\n203.0.113.9", "example.com", "2026", "MAIL.canary.example 2026", true)
	f.Add("bad\xffutf8\nx\x00yz\x00w", "", "", "BAD\xffUTF8 x\x00YZ\x00W", false)
	f.Add("xn--bcher-kva.example\nİSTANBUL", "xn--bcher-kva.example", "4t05", "bücher.example i̇stanbul 4t05", true)
	f.Add("v=spf1 include:_spf.example\nreject", "", "spf1", "v=spf1 include:_spf.example", true)
	f.Add("p.example.com\ncom evil", "shop.example.com", "2026", "2026 shop.example.com evil; shop.example.com. p.example.com", false)
	f.Fuzz(func(t *testing.T, values, allowed, generated, text string, vocab bool) {
		p := newDiffPair(vocab)
		p.allow(strings.Split(allowed, "\n")...)
		p.generated(strings.Split(generated, "\n")...)
		for _, v := range strings.Split(values, "\n") {
			p.add(v)
			p.add(tokens(v)...) // as AddText does, through Add
		}
		p.check(t, []byte(text), append(strings.Split(text, "\n"), text)...)
	})
}
