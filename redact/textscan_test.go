package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refHasACE is hasACE as it was: every byte tested.
func refHasACE(s string) bool {
	for i := 2; i+1 < len(s); i++ {
		if s[i] == '-' && s[i+1] == '-' && s[i-1]|0x20 == 'n' && s[i-2]|0x20 == 'x' {
			return true
		}
	}
	return false
}

// refASCIICase is asciiCase as it was: one byte at a time.
func refASCIICase(s string) (lower, ascii bool) {
	lower = true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return false, false
		case c >= 'A' && c <= 'Z':
			lower = false
		}
	}
	return lower, true
}

// field is how addText cut lines and tokens before lineSplitter and
// tokenAndShape: the bounds of the first run of t from i that holds no byte
// where brk is true; a == b when there is none.
func field(t string, i int, brk func(byte) bool) (a, b int) {
	for i < len(t) && brk(t[i]) {
		i++
	}
	a = i
	for i < len(t) && !brk(t[i]) {
		i++
	}
	return a, i
}

// refTokenShape is what token read of a token before it was read in one
// pass, one search per question.
func refTokenShape(tok string) tokenShape {
	sh := tokenShape{
		colon: strings.IndexByte(tok, ':'),
		slash: -1,
		at:    strings.LastIndexByte(tok, '@'),
		mark:  hasByte(tok, '.', '@', '/'),
		query: hasByte(tok, '?', '#', '#'),
		ctl:   hasCTL(tok),
	}
	if sh.colon >= 0 {
		if j := strings.IndexByte(tok[sh.colon+1:], '/'); j >= 0 {
			sh.slash = sh.colon + 1 + j
		}
	}
	return sh
}

// checkTextScan fails t when a helper of addText disagrees with the
// former reading of s: the case and ASCII test, the A-label test, the
// lines (field with isLineBreak), the tokens (field with isTokenBreak)
// and each token's shape (tokenAndShape), and valueLike.
func checkTextScan(t *testing.T, s string) {
	t.Helper()
	lower, ascii := asciiCase(s)
	wantLower, wantASCII := refASCIICase(s)
	require.Equal(t, wantLower, lower, "asciiCase lower of %q", s)
	require.Equal(t, wantASCII, ascii, "asciiCase ascii of %q", s)
	require.Equal(t, refHasACE(s), hasACE(s), "hasACE of %q", s)
	lines := lineSplitter{text: s, cr: strings.IndexByte(s, '\r')}
	for i := 0; i <= len(s); {
		a, b := lines.next(i)
		wa, wb := field(s, i, isLineBreak)
		require.Equal(t, [2]int{wa, wb}, [2]int{a, b}, "line of %q from %d", s, i)
		if a == b {
			break
		}
		for k := a; k < b; {
			ta, tb, sh := tokenAndShape(s[:b], k)
			wta, wtb := field(s[:b], k, func(c byte) bool { return c == ' ' || c == '\t' || c == ';' || c == ',' || c == '=' })
			require.Equal(t, [2]int{wta, wtb}, [2]int{ta, tb}, "token of %q from %d", s, k)
			if ta == tb {
				break
			}
			tok := s[ta:tb]
			require.Equal(t, refTokenShape(tok), sh, "shape of %q", tok)
			require.Equal(t, valueLike(tok), sh.valueLike(tok), "valueLike of %q", tok)
			k = tb
		}
		i = b
	}
}

// TestTextScanMatchesReference: texts with line breaks of each kind, in
// runs and at the ends, upper case in each byte of an 8-byte word,
// bytes past ASCII, A-labels in any case and split, and tokens with
// every byte a token's shape looks at.
func TestTextScanMatchesReference(t *testing.T) {
	texts := []string{
		"", "a", "\n", "\r\n", "\n\r", "a\rb\nc\r\nd", "\r\r\nx\n\n", "line one\nline two\r\nline three\r",
		"abcdefgh", "abcdefgH", "Abcdefgh", "abcdefghI", "abcdefg@[", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "`az{@AZ[",
		"abcdefg\x80", "\xffabcdefgh", "abcdefghijklmno\xc3\xa9", "xn--", "XN--a", "xN-", "x--n--", "axn-", "-xn--", "xxn---",
		"v=spf1 ip4:192.0.2.7/24 ip6:2001:db8::/48 include:_spf.example.net ~all",
		"mailto:a@b@c.example https://h.example/p?q#f x:/y a:b/c/d :x/y@z ctl:\x01x \x7fdel.example a.b",
		"k=v;k2=v2,k3 = v3\tmx: mail.example.com. ip6:::1 ip4:1.2.3.4: ::: @@ //",
	}
	for _, s := range texts {
		checkTextScan(t, s)
	}
	var b strings.Builder
	for c := range 256 {
		b.WriteByte(byte(c))
		b.WriteByte('a')
	}
	checkTextScan(t, b.String())
}

// FuzzTextScan: for any text, addText's one-pass helpers agree with the
// former byte-by-byte reading.
func FuzzTextScan(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.7/24 include:_spf.Example.net ~all")
	f.Add("version: STSv1\r\nmx: XN--bcher-kva.example.\nmx: 服务器.例子")
	f.Add("mailto:a@b.example?x#y,https://h.example/p ctl:\x01x")
	f.Fuzz(func(t *testing.T, s string) {
		checkTextScan(t, s)
	})
}

// TestTokenBreaks: isTokenBreak's word of bits holds exactly the TXT
// grammars' separators.
func TestTokenBreaks(t *testing.T) {
	for c := range 256 {
		want := strings.IndexByte(" \t;,=", byte(c)) >= 0
		assert.Equal(t, want, isTokenBreak(byte(c)), "byte %#x", c)
	}
}
