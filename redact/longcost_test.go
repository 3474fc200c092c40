package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// longCostSets are chains that make one of longAt's two searches dear,
// each with a text that meets its chain at every position: values that
// agree with a run of one letter up to their last bytes (a walk reads
// them all, the lookups are few); values with hundreds of lengths that
// differ from the text at their fifth byte (the lookups hash them all, a
// walk reads a few bytes of each); both at once, in one chain; a value
// of every length, each agreeing with the text up to its last bytes
// (both searches dear, walking the lesser); lengths that the filter
// rejects at every position, with a few it lets through; and the host
// names of one pattern that a real zone has.
func longCostSets() []struct {
	name   string
	values []string
	text   string
} {
	a := strings.Repeat
	var late, early, both, full, rejected, hosts []string
	for n := 1000; n <= 1020; n++ { // 21 lengths, 24 values each
		for k := range 24 {
			late = append(late, a("a", n-3)+string([]byte{byte('b' + k), 'b'})+"a")
		}
	}
	for n := 300; n < 1000; n++ { // 700 lengths
		early = append(early, "aaaab"+a("a", n-5))
	}
	for k, v := range late { // half of them, and 400 more lengths: within MaxBytes
		if k%2 == 0 {
			both = append(both, v)
		}
	}
	for n := 100; n < 500; n++ {
		both = append(both, "aaaab"+a("a", n-5))
	}
	for n := 5; n <= 1000; n++ { // every length, each agreeing with the text up to its last 2 bytes
		full = append(full, a("a", n-2)+"ba")
	}
	// Values of 900 lengths, each agreeing with a run of "a" up to its
	// last byte, which the filter tells apart from "a" at every length:
	// the filter rejects those lengths, and lets through 80 long values
	// that differ at their fifth byte. Walking costs about twice looking
	// up: the walk stops half way, and the lookups are of the 80 alone.
	words := endWords(980)
	runEnds := map[uint]bool{}
	for n := range MaxValueLen + 1 {
		runEnds[endBit(n, 'a', words)] = true
	}
	for n := 6; n < 906; n++ {
		c := byte('b')
		for runEnds[endBit(n, c, words)] {
			c++
		}
		rejected = append(rejected, a("a", n-1)+string(c))
	}
	for n := MaxValueLen - 79; n <= MaxValueLen; n++ {
		rejected = append(rejected, "aaaab"+a("a", n-5))
	}
	for i := range 1000 {
		hosts = append(hosts, fmt.Sprintf("mail-%d.example.net", i))
	}
	return []struct {
		name   string
		values []string
		text   string
	}{
		{"late-mismatch", late, a("a", 3000)},
		{"many-lengths", early, a("a", 3000)},
		{"both", both, a("a", 3000)},
		{"every-length", full, a("a", 3000)},
		{"filtered", rejected, a("a", 3000)},
		{"host-names", hosts, a("mail-x.example.net ", 150)},
	}
}

// walkAll and lookAll are what walking chain c, and looking up every
// length of its values, cost at t[i:] in longAt's account.
func walkAll(s *Set, c gramSlot, t string, excused int) (cost int) {
	for e := int32(c.head) - 1; e >= 0; e = s.store.at(e).next() {
		_, step := walkStep(s, *s.store.at(e), t, excused)
		cost += step
	}
	return cost
}

func lookAll(lg *longGram, t string, lo, hi int) (cost int) {
	for n := lg.next(lo+1, hi); n <= hi; n = lg.next(n+1, hi) {
		cost += lengthCost
		if lg.mayEnd(n, t[n-1]) {
			cost += lookupCost + n/hashBytes
		}
	}
	return cost
}

// TestLongAtCostsTheLesser: at every position of a text, with chains
// that make walking dear, looking up dear, or both, longAt spends no more
// than walking the chain when that is the lesser of the two searches,
// else at most twice the lookups, plus one step; and answers as walking
// the chain does.
func TestLongAtCostsTheLesser(t *testing.T) {
	const step = lengthCost + lookupCost + MaxValueLen/hashBytes
	r := rand.New(rand.NewPCG(1, 2))
	for _, set := range longCostSets() {
		t.Run(set.name, func(t *testing.T) {
			s := NewSet()
			for _, v := range set.values {
				s.Add(v)
			}
			require.False(t, s.Overflowed(), "the values fit the Set's bounds")
			// One value of the chain, placed in the text: every search must find it.
			hit := set.values[r.IntN(len(set.values))]
			text := set.text[:len(set.text)/2] + hit + set.text[len(set.text)/2:]
			s.mu.RLock()
			defer s.mu.RUnlock()
			g := gram(text[:MinLen])
			c := s.store.chain(g)
			require.Greater(t, int(c.n), longChain)
			s.store.long.mu.Lock()
			lg := s.store.long.gram(&s.store, g, c)
			s.store.long.mu.Unlock()
			founds, dear := 0, 0
			for i := 0; i+MinLen <= len(text); i++ {
				if gram(text[i:]) != g {
					continue
				}
				for _, excused := range []int{0, r.IntN(1100)} {
					found, spent := longAt(s, g, c, text, i, excused)
					require.Equal(t, chainIn(s, c, text, i, excusedCover(len(text), i, excused), 0), found, "position %d, %d excused", i, excused)
					lo, hi := max(excused, MinLen-1), min(len(text)-i, lg.maxLen)
					walk, look := walkAll(s, c, text[i:], lo), lookAll(lg, text[i:], lo, hi)
					bound := walk
					if look < walk {
						bound = 2*look + step
					}
					require.LessOrEqual(t, spent, bound, "position %d, %d excused: walking costs %d, looking up %d", i, excused, walk, look)
					lesser := min(walk, look)
					if found {
						founds++
					}
					if lesser > 1000 {
						dear++
					}
				}
			}
			require.Positive(t, founds, "the value placed in the text is found")
			if set.name != "host-names" {
				require.Positive(t, dear, "a position where both searches are dear")
			}
		})
	}
}

// excusedCover returns an allowedCover of a text of n bytes that excuses
// excused bytes from position i.
func excusedCover(n, i, excused int) []int {
	cover := make([]int, n+1)
	for k := range cover {
		cover[k] = k
	}
	cover[i] = i + excused
	return cover
}

// BenchmarkLongChains: what Contains costs a position of a text that
// meets a long chain at every position (longCostSets), against walking
// the chain (chainIn) and looking up every length of its values, each
// alone; ns/position.
func BenchmarkLongChains(b *testing.B) {
	for _, set := range longCostSets() {
		s := NewSet()
		for _, v := range set.values {
			s.Add(v)
		}
		positions := float64(len(set.text) - MinLen + 1)
		g := gram(set.text[:MinLen])
		c := s.store.chain(g)
		b.Run(set.name+"/contains", func(b *testing.B) {
			for range b.N {
				if s.Contains(set.text) {
					b.Fatal("found")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/positions, "ns/position")
		})
		b.Run(set.name+"/walk", func(b *testing.B) {
			s.mu.RLock()
			defer s.mu.RUnlock()
			for range b.N {
				for i := 0; i+MinLen <= len(set.text); i++ {
					if gram(set.text[i:]) == g && chainIn(s, c, set.text, i, nil, 0) {
						b.Fatal("found")
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/positions, "ns/position")
		})
		b.Run(set.name+"/lookups", func(b *testing.B) {
			s.mu.RLock()
			defer s.mu.RUnlock()
			lg := s.store.long.gram(&s.store, g, c)
			for range b.N {
				for i := 0; i+MinLen <= len(set.text); i++ {
					if gram(set.text[i:]) != g {
						continue
					}
					hi := min(len(set.text)-i, lg.maxLen)
					for n := lg.next(MinLen, hi); n <= hi; n = lg.next(n+1, hi) {
						if lg.mayEnd(n, set.text[i+n-1]) && s.store.findString(set.text[i:i+n]) >= 0 {
							b.Fatal("found")
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/positions, "ns/position")
		})
	}
}
