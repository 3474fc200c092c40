package resolver

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodedTXT decodes a TXT record of the given presentation strings.
func decodedTXT(t *testing.T, ss ...string) Record {
	t.Helper()
	var r Record
	require.True(t, decodeInto(&r, &dns.TXT{Hdr: dns.RR_Header{Name: "a.test.", Rrtype: dns.TypeTXT, Class: dns.ClassINET}, Txt: ss}))
	return r
}

// A decoded record of several strings is joined once: JoinedTXT returns
// the decoder's text, of which the strings are pieces, without a copy.
// (Not parallel: AllocsPerRun.)
func TestJoinedTXTSharesTheDecodedText(t *testing.T) {
	r := decodedTXT(t, `v=spf1 ip4:192.0.2.1`, ``, `\032-all\\x`, `\255\"`)
	want := "v=spf1 ip4:192.0.2.1 -all\\x\xff\""
	assert.Equal(t, []string{"v=spf1 ip4:192.0.2.1", "", " -all\\x", "\xff\""}, r.TXT)
	assert.Equal(t, want, r.JoinedTXT())
	assert.Equal(t, unsafe.StringData(r.TXT[0]), unsafe.StringData(r.JoinedTXT()), "the strings are pieces of the joined text")
	assert.Zero(t, testing.AllocsPerRun(10, func() { _ = r.JoinedTXT() }), "JoinedTXT copies")

	a := cloneAnswer(&Answer{Outcome: Found, Records: []Record{r}})
	assert.Equal(t, want, a.Records[0].JoinedTXT())
	assert.Equal(t, unsafe.StringData(r.JoinedTXT()), unsafe.StringData(a.Records[0].JoinedTXT()), "a clone shares the joined text")
}

// Whatever a reader does to the slice of strings, JoinedTXT returns their
// concatenation: the kept text only when it still is that.
func TestJoinedTXTAfterTheSliceChanged(t *testing.T) {
	t.Parallel()
	fresh := func() []string { return decodedTXT(t, "abcd", "efgh", "ijkl").TXT }
	cases := map[string]func([]string) []string{
		"replaced":      func(s []string) []string { s[1] = "XXXX"; return s },
		"same length":   func(s []string) []string { s[1] = strings.Clone("efgh"); return s },
		"swapped":       func(s []string) []string { s[0], s[1] = s[1], s[0]; return s },
		"cut":           func(s []string) []string { return s[:2] },
		"cut to one":    func(s []string) []string { return s[:1] },
		"appended":      func(s []string) []string { return append(s, "mnop") },
		"appended none": func(s []string) []string { return append(s, "") },
		"from second":   func(s []string) []string { return s[1:] },
		"emptied":       func(s []string) []string { s[2] = ""; return s },
		"shortened":     func(s []string) []string { s[2] = s[2][:2]; return s },
	}
	for name, change := range cases {
		txt := change(fresh())
		assert.Equal(t, strings.Join(txt, ""), Record{TXT: txt}.JoinedTXT(), name)
		assert.Equal(t, txt, cloneTXT(txt), name)
		assert.Equal(t, strings.Join(txt, ""), Record{TXT: cloneTXT(txt)}.JoinedTXT(), name)
	}
}

// refUnescape is unescape as it was written byte by byte, the reference
// for the one that writes the runs between escapes whole.
func refUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			if n, err := strconv.Atoi(s[i+1 : i+4]); err == nil && n <= 255 {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

// FuzzUnescape: unescape, and the joined text of a record cut anywhere,
// agree with the reference.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{``, `\`, `a\`, `\\`, `\0`, `\00`, `\000`, `\255`, `\256`, `\2555`, `a\"b\;c`, `\1x2`, `v=spf1 \032-all`, `\\\`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		require.Equal(t, refUnescape(s), unescape(s))
		parts := []string{s, s}
		if cut >= 0 && cut <= len(s) {
			parts = []string{s[:cut], s[cut:], s}
		}
		var want strings.Builder
		for _, p := range parts {
			want.WriteString(refUnescape(p))
		}
		require.Equal(t, want.String(), Record{TXT: unescapeAll(parts)}.JoinedTXT())
	})
}
