package redact

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// memoAll is a Memoizer over fixed answers that hands every answer with
// its memo (as a Cache does for an answer it held already), computed
// afresh at each lookup.
type memoAll map[string]resolver.Answer

func (m memoAll) Lookup(_ context.Context, name string, _ resolver.Type) resolver.Answer {
	return m[name]
}

func (m memoAll) LookupMemo(_ context.Context, name string, _ resolver.Type, _ any, compute func(resolver.Answer) (any, int)) (resolver.Answer, any) {
	a := m[name]
	if compute == nil {
		return a, nil
	}
	memo, _ := compute(a)
	return a, memo
}

// TestAttackQueuedMemoMatchesEager: answers handed with their memo (the
// queue's forms path) record what recording them at once records, in
// the same order, far from the bounds, near them and past them, aliases
// and an answer too large for a memo included; every answer handed on
// has its values found.
func TestAttackQueuedMemoMatchesEager(t *testing.T) {
	tree := queuedTree(40, 255, nil)
	var b strings.Builder
	for i := range 9000 {
		fmt.Fprintf(&b, " t%05d.big.example", i)
	}
	big := b.String()
	tree.answers["big.example"] = resolver.Answer{Outcome: resolver.Found,
		Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: chunks(big, 255)}}}
	tree.names = append(tree.names, "big.example", tree.names[3])
	for name, fill := range map[string][]string{
		"far":            nil,
		"near MaxValues": filler(MaxValues-40*130, 0),
		"past MaxValues": filler(MaxValues-1500, 0),
		"near MaxBytes":  filler(400, (MaxBytes-40*6000)/400),
		"full before":    filler(MaxValues, 0),
	} {
		t.Run(name, func(t *testing.T) {
			for _, vocab := range []bool{false, true} {
				eager, queued := NewSet(), NewSet()
				if vocab {
					v := NewVocabulary("v=spf1 include:_spf.example.net -all", "ip4:192.0.2.0/24")
					eager.UseVocabulary(v)
					queued.UseVocabulary(v)
				}
				eager.Add(fill...)
				queued.Add(fill...)
				next := memoAll(tree.answers)
				re, rq := eager.Resolver(next), queued.ScanResolverThen(next, nil)
				for _, n := range tree.names {
					a := re.Lookup(context.Background(), n, resolver.TypeTXT)
					b := rq.Lookup(context.Background(), n, resolver.TypeTXT)
					require.Equal(t, a, b, "the answer to %q", n)
					if b.Outcome == resolver.Found {
						for _, tok := range tokens(b.Records[0].JoinedTXT())[2:4] {
							assert.True(t, queued.Contains(tok), "%q of %q handed on, not found", tok, n)
						}
					}
				}
				require.Equal(t, storeValues(eager), storeValues(queued))
				require.Equal(t, eager.isUnguarded(), queued.isUnguarded())
				require.Equal(t, eager.Overflowed(), queued.Overflowed())
			}
		})
	}
}

// TestAttackQueuedConcurrentReads: lookups beneath a resolver.Scan keep
// arriving on many goroutines, some recorded at once (not ASCII), most
// queued, while others read the Set (Verify, Contains, Len, Bytes).
// Every value of an answer handed on is found
// from the moment its lookup returns, and the Set ends with the values
// recording every answer at once records. Run with -race.
func TestAttackQueuedConcurrentReads(t *testing.T) {
	const workers, each = 8, 40
	answers := map[string]resolver.Answer{}
	var names []string
	for w := range workers {
		for i := range each {
			name := fmt.Sprintf("q%d-%d.conc.example", w, i)
			a := resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Type: resolver.TypeTXT,
				TXT: chunks(fmt.Sprintf("v=spf1 include:inc%d-%d.conc.example ip4:10.%d.%d.1/32 -all", w, i, w, i), 20)}}}
			if i%3 == 0 {
				a.CNAMEs = []string{fmt.Sprintf("alias%d-%d.conc.example", w, i)}
			}
			if i%5 == 4 { // not ASCII: recorded at once, after the queue
				a.Records = append(a.Records, resolver.Record{Type: resolver.TypeMX, Target: fmt.Sprintf("mx%d-%d.bücher.example", w, i)})
			}
			answers[name] = a
			names = append(names, name)
		}
	}
	for _, memo := range []bool{false, true} {
		t.Run(fmt.Sprint("memo ", memo), func(t *testing.T) {
			s := NewSet()
			var next resolver.Resolver = resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer {
				return answers[name]
			})
			if memo {
				next = memoAll(answers)
			}
			scan := resolver.NewScan(s.ScanResolverThen(next, nil), 100000)
			handed := make(chan string, workers*each)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						a := scan.Lookup(context.Background(), fmt.Sprintf("q%d-%d.conc.example", w, i), resolver.TypeTXT)
						inc := fmt.Sprintf("inc%d-%d.conc.example", w, i)
						if !assert.Equal(t, resolver.Found, a.Outcome) {
							return
						}
						assert.True(t, s.Contains("see "+inc), "%s handed on, not found", inc)
						handed <- inc
					}
				}()
			}
			stop := make(chan struct{})
			var readers sync.WaitGroup
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					select {
					case inc := <-handed:
						err := s.Verify(fmt.Appendf(nil, `{"text":"at %s"}`, inc))
						assert.ErrorIs(t, err, ErrLeak, "%s", inc)
						assert.Positive(t, s.Len())
						assert.Positive(t, s.Bytes())
					case <-stop:
						return
					}
				}
			}()
			wg.Wait()
			close(stop)
			readers.Wait()
			want := NewSet()
			for _, n := range names {
				want.Add(resolver.CanonicalName(n))
				want.addAnswer(answers[n])
			}
			got, exp := storeValues(s), storeValues(want)
			slices.Sort(got)
			slices.Sort(exp)
			require.Equal(t, exp, got)
			require.NoError(t, s.Verify([]byte(`{"ok":"nothing recorded"}`)))
		})
	}
}

// TestAttackQueuedAnswerNotShared: the answer a lookup beneath the Scan
// hands on is a copy: a caller that rewrites every record of it (as a
// check sorting or trimming its records might) changes nothing the Set
// records from its queue.
func TestAttackQueuedAnswerNotShared(t *testing.T) {
	s := NewSet()
	a := resolver.Answer{Outcome: resolver.Found, CNAMEs: []string{"alias.shared.example"},
		Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"v=spf1 include:", "orig.shared.example -all"}},
			{Type: resolver.TypeMX, Target: "mx.shared.example"}}}
	scan := resolver.NewScan(s.ScanResolverThen(resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return a
	}), nil), 0)
	got := scan.Lookup(context.Background(), "q.shared.example", resolver.TypeTXT)
	got.CNAMEs[0] = "changed.example"
	got.Records[0].TXT[1] = "changed.example -all"
	got.Records[1].Target = "changed.example"
	clear(got.Records)
	for _, v := range []string{"alias.shared.example", "orig.shared.example", "mx.shared.example", "q.shared.example"} {
		require.True(t, s.Contains("x "+v+" y"), v)
	}
	require.False(t, s.Contains("changed.example"))
}

// TestAttackQueuedOverflowVerdicts: when a queued answer does not fit
// (a bound proved wrong by hand), every output is refused, one with no
// string at all included, and Contains still finds what was recorded.
func TestAttackQueuedOverflowVerdicts(t *testing.T) {
	for _, body := range []string{`{}`, `[]`, `1`, `{"a":"harmless"}`, `{"a":"b.example"}`} {
		s := NewSet()
		s.Add(filler(MaxValues-2, 0)...)
		s.mu.Lock()
		s.pending = [][]pendingLookup{{{name: "a.example", records: []resolver.Record{{Type: resolver.TypeTXT,
			TXT: []string{"v=spf1 include:b.example include:c.example -all"}}}}}}
		s.pendingValues, s.pendingBytes = 1, 9
		s.mu.Unlock()
		err := s.Verify([]byte(body))
		require.True(t, errors.Is(err, ErrUnguarded) || errors.Is(err, ErrLeak), "%s: %v", body, err)
		require.ErrorIs(t, s.Verify([]byte(`{"a":"harmless"}`)), ErrUnguarded)
	}
}

// TestAttackReserveHashMixedDepths: a table whose segments have split to
// different depths (values crowding one prefix) is readied for more
// values, to a depth below, at and past its deepest segment's; every
// value stays reachable, every segment sound, and values added after go
// in as ever.
func TestAttackReserveHashMixedDepths(t *testing.T) {
	crowded := func(i int) uint64 {
		if i%2 == 0 {
			return 0xf0f00000_00000000 ^ uint64(uint32(i)<<indexBits&0x0003ffff)<<32 // one deep path
		}
		return uint64(uint32(i)*0x9e3779b1) << 32
	}
	for _, n := range []int{300, 1000, 2500, 8000, 1 << 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var st valueStore
			vals := map[string]uint64{}
			put := func(i int) {
				v := fmt.Sprintf("m%06d.example", i)
				vals[v] = crowded(i)
				blk, off := st.reserve(len(v))
				copy(st.span(blk, off, len(v)), v)
				st.take(blk, off+len(v))
				st.add(blk, off, len(v), vals[v])
			}
			for i := range 1200 {
				put(i)
			}
			requireSegmentsSound(t, &st)
			depths := map[int]bool{}
			for _, seg := range st.byHash {
				depths[seg.depth] = true
			}
			require.Greater(t, len(depths), 1, "segments of one depth: the case is not made")
			st.reserveHash(n)
			st.reserveHash(n) // again: nothing to do
			requireSegmentsSound(t, &st)
			for i := 1200; i < 1200+3000; i++ {
				put(i)
			}
			requireSegmentsSound(t, &st)
			for v, h := range vals {
				require.GreaterOrEqual(t, st.find([]byte(v), h), int32(0), v)
			}
		})
	}
}

// tightTexts are texts that bring each term of textBound near what
// recording them records: tokens that give every value a token can
// (URIs with a user part and a query; "scheme:rest/part" tokens, whose
// three values the bound counts exactly; long "k:m@domain/o" tokens,
// whose four values each take nearly the token's bytes), many lines of
// them, each line a value of its own, cut into pieces.
func tightTexts() map[string]string {
	var uris, schemes, lines, mailboxes, long strings.Builder
	pad := strings.Repeat("w", 48)
	for i := range 60 {
		fmt.Fprintf(&uris, "http://u%03d@h%03d.example:80/p%03d?q ", i, i, i)
		fmt.Fprintf(&schemes, "k:a%03dz/b%03dz ", i, i)
		fmt.Fprintf(&lines, "k:c%03dz/d%03dz k:e%03dz/f%03dz\n", i, i, i, i)
		fmt.Fprintf(&mailboxes, "k:m%03dz@n%03dz.x/o%03dz\nk:p%03dz@q%03dz.x/r%03dz ", i, i, i, i, i, i)
		if i < 8 { // the text whole within MaxValueLen
			fmt.Fprintf(&long, "k:m@n%03d%s/o k:p@q%03d%s/r\n", i, pad, i, pad)
		}
	}
	return map[string]string{"URIs": uris.String(), "scheme tokens": schemes.String(),
		"lines": lines.String(), "mailboxes on lines": mailboxes.String(),
		"long mailboxes": long.String()}
}

// TestAttackBoundsHold: answerBound is an upper bound of what recording
// an answer records, for answers crafted to make each of its terms
// count (the fuzz seeds leave most of its terms slack enough that
// dropping one goes unnoticed), addresses and aliases included.
func TestAttackBoundsHold(t *testing.T) {
	answers := map[string]resolver.Answer{}
	for name, text := range tightTexts() {
		for _, chunk := range []int{0, 1, 5, 255} {
			answers[fmt.Sprint(name, " in pieces of ", chunk)] = resolver.Answer{
				Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: chunks(text, chunk)}}}
		}
		answers[name+" as CAA"] = resolver.Answer{Records: []resolver.Record{{Type: resolver.TypeCAA, CAAValue: text}}}
	}
	var addrs []resolver.Record
	for i := range 40 {
		addrs = append(addrs, resolver.Record{Type: resolver.TypeAAAA, Addr: netip.AddrFrom16([16]byte{0x20, 1, 0xd, 0xb8, 15: byte(i)})},
			resolver.Record{Type: resolver.TypeMX, Target: fmt.Sprintf("mx%02d.example", i)})
	}
	answers["addresses and targets"] = resolver.Answer{CNAMEs: []string{"a1.example", "a2.example"}, Records: addrs}
	for name, a := range answers {
		t.Run(name, func(t *testing.T) {
			values, bytes, ok := answerBound(&a)
			require.True(t, ok)
			got, gotBytes := addedBy(a)
			require.LessOrEqual(t, got, values, "values")
			require.LessOrEqual(t, gotBytes, bytes, "bytes")
		})
	}
}
