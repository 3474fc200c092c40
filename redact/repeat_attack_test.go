package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/resolver"
)

// TestAttackRepeatAtTheBounds: a text recorded as one piece and one line
// repeats the piece's outcome for the whole text and its line (again)
// rather than looking the span up twice more. A Set one value or a few
// bytes from full must still fill at the same value, and refuse the same
// ones, as the reference: texts of one piece and one line, of several
// pieces, an A-label text and a text not in lower case, each recorded
// when the Set holds MaxValues-2 to MaxValues values, or is 0 to 40 bytes
// under MaxBytes, or about once or twice the text's length (a duplicate
// counts its bytes against MaxBytes too).
func TestAttackRepeatAtTheBounds(t *testing.T) {
	texts := []string{
		"v=spf1 ip4:192.0.2.7/24 include:_spf.example.net -all",
		"V=SPF1 IP4:192.0.2.7/24 INCLUDE:_SPF.EXAMPLE.NET -ALL",
		"include:xn--bcher-kva.example",
		"single.example.net",
		"line.example\nline two.example",
	}
	fillCount := func(p diffPair, n int) {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("v%d.fill.example", i)
		}
		p.add(vals...)
	}
	fillBytes := func(p diffPair, under int) {
		// Values of 1,000 bytes, then one that leaves under bytes free.
		n := 0
		for i := 0; MaxBytes-n-under >= 1000+MinLen; i++ {
			v := fmt.Sprintf("%04d", i) + strings.Repeat("b", 996)
			p.add(v)
			n += len(v)
		}
		if rest := MaxBytes - n - under; rest >= MinLen {
			p.add("z" + strings.Repeat("c", rest-1))
		}
	}
	for _, text := range texts {
		for _, chunk := range []int{0, 7} {
			record := func(p diffPair) {
				parts := chunks(text, chunk)
				p.got.addAnswer(resolver.Answer{Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: parts}}})
				p.want.Add(parts...)
				refAddText(p.want, text)
			}
			for _, k := range []int{2, 1, 0} {
				t.Run(fmt.Sprintf("count-%d/%q/chunk=%d", k, text, chunk), func(t *testing.T) {
					p := newDiffPair(true)
					fillCount(p, MaxValues-k)
					record(p)
					p.check(t, nil, text, "x single.example.net y")
				})
			}
			l := len(text)
			for _, under := range []int{0, 1, 10, 20, 40, l - 1, l, l + 1, 2*l - 1, 2 * l, 2*l + 1} {
				t.Run(fmt.Sprintf("bytes-%d/%q/chunk=%d", under, text, chunk), func(t *testing.T) {
					p := newDiffPair(true)
					fillBytes(p, under)
					record(p)
					p.check(t, nil, text, "x single.example.net y")
				})
			}
		}
	}
}
