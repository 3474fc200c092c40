package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// longChainDomain is a typed domain made of one letter, as a hostile
// zone's owner can choose: every piece of it shares its first 4 bytes.
var longChainDomain = strings.Repeat("a", 63) + "." + strings.Repeat("a", 57) + ".aaaa.example"

// longChainPair returns a guard and its reference holding values that
// share their first 4 bytes far past longChain: pieces of
// longChainDomain (allowed), values of the same gram found nowhere, and
// host names of one pattern.
func longChainPair(t testing.TB, generated ...string) diffPair {
	a := func(n int) string { return strings.Repeat("a", n) }
	p := newDiffPair(true)
	p.allow(longChainDomain)
	p.generated(generated...)
	for k := MinLen; k <= 70; k++ {
		p.add(a(k))
	}
	for x := 1; x <= 63; x += 3 {
		for y := 1; y <= 57; y += 4 {
			p.add(a(x) + "." + a(y))
		}
	}
	for k := 1; k < 120; k++ {
		p.add("aaaa" + a(k) + "b")
	}
	for k := 1; k < 120; k++ {
		p.add("zzzz" + strings.Repeat("y", k) + "z")
	}
	p.add("aaaa.example,") // crosses the domain's end by one byte
	for i := range 300 {
		p.add(fmt.Sprintf("mail-%d.example.net", i))
	}
	for _, g := range []string{"aaaa", "mail", "zzzz"} {
		require.Greater(t, int(p.got.store.chain(gram(g)).n), longChain, "the chain of %q", g)
	}
	return p
}

// TestLongChainsAgreeWithReference: values that share their first 4
// bytes past longChain are found by their lengths, not by walking the
// chain; the guard answers as its reference does, which walks every
// value, and as a reader expects.
func TestLongChainsAgreeWithReference(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, gen := range [][]string{nil, {"2026", "aaaa"}} {
		t.Run(fmt.Sprintf("generated=%d", len(gen)), func(t *testing.T) {
			p := longChainPair(t, gen...)
			s := p.got
			found := []string{
				longChainDomain + "x",      // joined to a letter: not the typed domain
				"x." + longChainDomain,     // a longer name
				longChainDomain[:100],      // a piece of it, alone
				"see " + a(30) + " here",   // a recorded value, alone
				"aaaa" + a(40) + "b.",      // a value of the gram that the domain does not hold
				"mail-77.example.net",      // the host names' chain
				"at mail-299.example.nets", // one at a text's start, one inside a word
				"mail-0.example.net",
				"see " + longChainDomain + ", then",             // a value one byte past the domain's end
				"zzzz" + strings.Repeat("y", 100) + "z",         // the one value of 106 bytes it holds
				"zz zzzz" + strings.Repeat("y", 1) + "z",        // the shortest
				"zzzz" + strings.Repeat("y", 119) + "zzzzzzzzz", // the longest
			}
			for _, text := range found {
				require.True(t, s.Contains(text), "%q", text)
			}
			notFound := []string{
				longChainDomain,
				"check the spelling of " + longChainDomain + ": it does not exist",
				longChainDomain + ". " + strings.ToUpper(longChainDomain),
				"mail-300.example.net", "mail-1000.example.net", "mail-0.example.ne",
				a(3), "aaab", "aaa.aaa", "see " + longChainDomain + " , then",
				"zzzz" + strings.Repeat("y", 120) + "z", "zzzz" + strings.Repeat("y", 100) + "y", "zzzzz",
			}
			for _, text := range notFound {
				require.False(t, s.Contains(text), "%q", text)
			}
			p.check(t, nil, append(found, notFound...)...)
		})
	}
}

// FuzzLongChains: with values sharing their first 4 bytes past
// longChain, the guard agrees with its reference for any further values
// of that gram, any allowed value and any text.
func FuzzLongChains(f *testing.F) {
	f.Add("aaaab\naaaa.aaaa\nmail-3.example.net", "aaaaaaaa.example", "aaaaaaaa.example is aaaab; mail-3.example.net")
	f.Add("aaaa\x00\naaaaé", "", "AAAA\x00 AAAAÉ aaaa")
	f.Fuzz(func(t *testing.T, values, allowed, text string) {
		p := longChainPair(t)
		p.allow(strings.Split(allowed, "\n")...)
		for _, v := range strings.Split(values, "\n") {
			p.add(v, "aaaa"+v, "mail"+v)
		}
		p.check(t, []byte(text), append(strings.Split(text, "\n"), text)...)
	})
}

// TestLongGramFilter: as a chain grows past the filter's size, with
// searches between, the filter lets through every value's length and
// last byte, and the search finds every value.
func TestLongGramFilter(t *testing.T) {
	s := NewSet()
	var values []string
	for _, upTo := range []int{20, 70, 140, 300, 1100} {
		for k := len(values); k < upTo; k++ {
			v := fmt.Sprintf("mail%d%c", k, 'a'+k%26)
			values = append(values, v)
			s.Add(v)
		}
		require.False(t, s.Contains("mail-none"))
		c := s.store.chain(gram("mail"))
		lg := s.store.long.grams[gram("mail")]
		require.NotNil(t, lg)
		require.Equal(t, endWords(int(c.n)), len(lg.ends), "%d values", len(values))
		for _, v := range values {
			require.True(t, lg.has(len(v)) && lg.mayEnd(len(v), v[len(v)-1]), "%q, %d values", v, len(values))
			require.True(t, s.Contains("at "+v+"."), "%q, %d values", v, len(values))
		}
	}
	for _, w := range []int{16, 32, 64, 256} {
		seen := map[uint]bool{}
		for n := MinLen; n <= MaxValueLen; n++ {
			for c := 0; c < 256; c++ {
				b := endBit(n, byte(c), w)
				require.Less(t, b, uint(64*w))
				seen[b] = true
			}
		}
		require.Len(t, seen, 64*w, "every bit of a filter of %d words is used", w)
	}
}

// TestLongChainsGrowAfterASearch: values recorded after a search met
// their chain are found by the next one, as are the older ones.
func TestLongChainsGrowAfterASearch(t *testing.T) {
	p := longChainPair(t)
	require.False(t, p.got.Contains("mail-1000.example.net"))
	require.True(t, p.got.Contains("mail-299.example.net"))
	p.add("mail-1000.example.net", "mail-x.example.net", "aaaa"+strings.Repeat("q", 300))
	for _, text := range []string{"mail-1000.example.net", "at mail-x.example.net", "aaaa" + strings.Repeat("q", 300), "mail-3.example.net"} {
		require.True(t, p.got.Contains(text), "%q", text)
	}
	p.check(t, nil, "mail-1000.example.net", "mail-1001.example.net", "aaaa"+strings.Repeat("q", 299))
}
