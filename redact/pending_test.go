package redact

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/resolver"
	"github.com/stretchr/testify/require"
)

// storeValues returns the values s holds, in the order it recorded them.
func storeValues(s *Set) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	out := make([]string, s.store.count)
	for e := range out {
		out[e] = string(s.store.value(int32(e)))
	}
	return out
}

// queuedCase is a sequence of lookups recorded by two Sets, one through
// Resolver (at once) and one through ScanResolverThen (queued), after
// fill values given to both with Add.
type queuedCase struct {
	vocab   bool
	fill    []string
	names   []string
	answers map[string]resolver.Answer
}

// checkQueuedAgrees runs c and requires the two Sets to agree after every
// lookup (the answer handed on, Overflowed) and at the end (the values
// recorded and their order, Len, Bytes, searches, Verify).
func checkQueuedAgrees(t *testing.T, c queuedCase, searches ...string) {
	t.Helper()
	eager, queued := NewSet(), NewSet()
	if c.vocab {
		v := NewVocabulary("v=spf1 include:_spf.example.net -all", "ip4:192.0.2.0/24")
		eager.UseVocabulary(v)
		queued.UseVocabulary(v)
	}
	eager.Add(c.fill...)
	queued.Add(c.fill...)
	next := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer {
		return c.answers[name]
	})
	var seen []resolver.Answer
	re := eager.Resolver(next)
	rq := queued.ScanResolverThen(next, func(_ context.Context, a resolver.Answer) { seen = append(seen, a) })
	for _, n := range c.names {
		a := re.Lookup(context.Background(), n, resolver.TypeTXT)
		b := rq.Lookup(context.Background(), n, resolver.TypeTXT)
		require.Equal(t, a, b, "the answer to %q", n)
		require.Equal(t, a, seen[len(seen)-1], "the answer then got")
		require.Equal(t, eager.Overflowed(), queued.Overflowed(), "after %q", n)
	}
	require.Equal(t, storeValues(eager), storeValues(queued))
	require.Equal(t, eager.Len(), queued.Len())
	require.Equal(t, eager.Bytes(), queued.Bytes())
	require.Equal(t, eager.isUnguarded(), queued.isUnguarded())
	for _, s := range searches {
		require.Equal(t, eager.Contains(s), queued.Contains(s), "%q", s)
		body := fmt.Appendf(nil, `{"a":%q}`, s)
		require.Equal(t, eager.Verify(body), queued.Verify(body), "%q", s)
	}
}

// hostileText is a long SPF record like those of a hostile tree, n
// mechanisms of each family.
func hostileText(tag, n int) string {
	var b strings.Builder
	b.WriteString("v=spf1")
	for k := range n {
		fmt.Fprintf(&b, " ip4:198.51.%d.%d/32 ip6:2001:db8:%x::%x/128", tag%250, k, tag, k)
	}
	fmt.Fprintf(&b, " include:j%d.tree.example.com -all", tag)
	return b.String()
}

// queuedTree is a case of count TXT lookups of long records (cut in
// strings of chunk bytes), with some aliases, addresses and CAA values,
// after fill values.
func queuedTree(count, chunk int, fill []string) queuedCase {
	c := queuedCase{fill: fill, answers: map[string]resolver.Answer{}}
	for i := range count {
		name := fmt.Sprintf("i%d.tree.example.com", i)
		rec := resolver.Record{Type: resolver.TypeTXT, TXT: chunks(hostileText(i, 20), chunk)}
		a := resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{rec}}
		switch i % 4 {
		case 1:
			a.CNAMEs = []string{fmt.Sprintf("alias%d.example.net", i)}
		case 2:
			a.Records = append(a.Records, resolver.Record{Type: resolver.TypeA, Addr: netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})},
				resolver.Record{Type: resolver.TypeCAA, CAAValue: fmt.Sprintf("ca%d.example; account=%d", i, i)})
		case 3:
			a.Records = append(a.Records, resolver.Record{Type: resolver.TypeMX, Target: fmt.Sprintf("mx%d.example.org", i)})
		}
		c.names = append(c.names, name)
		c.answers[name] = a
	}
	// Asked twice: every value a duplicate.
	c.names = append(c.names, c.names[0], "missing.example")
	return c
}

// filler returns n distinct values of about size bytes each.
func filler(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		v := fmt.Sprintf("fill%06d.example", i)
		out[i] = v + strings.Repeat("x", max(0, size-len(v)))
	}
	return out
}

// A tree of answers queued and recorded later records what recording each
// at its lookup records, in the same order, and hands on the same answers,
// the lookups that no longer fit failing alike: with the Set far from its
// bounds, near MaxValues and near MaxBytes (where answers are recorded at
// once, after the queue), and past them.
func TestQueuedMatchesEager(t *testing.T) {
	searches := []string{"198.51.3.7", "ip6:2001:db8:5::3/128", "alias1.example.net", "mx3.example.org",
		"192.0.2.2", "ca2.example", "i0.tree.example.com", "fill000001.example", "nothing here"}
	for name, c := range map[string]queuedCase{
		"far":             queuedTree(51, 255, nil),
		"vocabulary":      func() queuedCase { c := queuedTree(12, 100, nil); c.vocab = true; return c }(),
		"near MaxValues":  queuedTree(30, 255, filler(MaxValues-30*130, 0)),
		"at MaxValues":    queuedTree(10, 255, filler(MaxValues-1-10*125, 0)),
		"past MaxValues":  queuedTree(30, 255, filler(MaxValues-700, 0)),
		"near MaxBytes":   queuedTree(30, 255, filler(400, (MaxBytes-30*6000)/400)),
		"past MaxBytes":   queuedTree(30, 255, filler(400, (MaxBytes-20000)/400)),
		"full before":     queuedTree(5, 255, filler(MaxValues, 0)),
		"short strings":   queuedTree(8, 7, nil),
		"one string each": queuedTree(8, 4000, nil),
	} {
		t.Run(name, func(t *testing.T) {
			checkQueuedAgrees(t, c, searches...)
		})
	}
}

// FuzzQueuedMatchesEager is TestQueuedMatchesEager for any text, cut in
// strings of chunk bytes, answered to lookups, some as a CAA value, after
// fill values that bring the Set near its bounds.
func FuzzQueuedMatchesEager(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.7/24 include:_spf.Example.net ~all", uint8(7), uint16(0), uint8(3))
	f.Add("v=DMARC1; rua=mailto:a@b.example?x#y,https://h.example/p", uint8(0), uint16(8100), uint8(9))
	f.Add("https://%78n--bcher-kva.example/ http://a@b:80/c?d mailto:x@xn--nxasmq6b.example", uint8(5), uint16(8180), uint8(2))
	f.Add(hostileText(3, 20), uint8(255), uint16(7000), uint8(12))
	f.Add("a\r\nb;c,d=e\tf g@h@i j:k/l/m", uint8(2), uint16(8191), uint8(1))
	fills := filler(MaxValues, 0)
	f.Fuzz(func(t *testing.T, text string, chunk uint8, fill uint16, lookups uint8) {
		if len(text) > 1000 {
			text = text[:1000]
		}
		c := queuedCase{fill: fills[:int(fill)%(MaxValues+1)], answers: map[string]resolver.Answer{}}
		for i := range int(lookups%16) + 1 {
			name := fmt.Sprintf("n%d.example", i)
			txt := fmt.Sprintf("%s %d", text, i%3)
			a := resolver.Answer{Outcome: resolver.Found}
			if i%5 == 4 {
				a.Records = []resolver.Record{{Type: resolver.TypeCAA, CAAValue: txt}}
			} else {
				a.Records = []resolver.Record{{Type: resolver.TypeTXT, TXT: chunks(txt, int(chunk))}}
			}
			c.names = append(c.names, name)
			c.answers[name] = a
		}
		searches := append([]string{text}, tokens(text)...)
		if len(searches) > 20 {
			searches = searches[:20]
		}
		checkQueuedAgrees(t, c, searches...)
	})
}

// addedBy returns the values and bytes a Set without a vocabulary records
// from a: at least as many as one with a vocabulary, duplicates aside.
func addedBy(a resolver.Answer) (values, bytes int) {
	s := NewSet()
	s.addAnswer(a)
	return s.store.count, s.store.bytes
}

// textBound and answerBound bound what recording the answer records,
// whatever its text.
func FuzzTextBound(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.7/24 include:_spf.Example.net ~all", uint8(7))
	f.Add("v=DMARC1; rua=mailto:a@b.example?x#y,https://h.example/p", uint8(0))
	f.Add("http://a@b:80/c?d mailto:x@y.example https://[2001:db8::1]:443/x#f scheme:op@que/x", uint8(3))
	f.Add("a@b@c:d@e/f@g x:/y z:?w k#l;m=n,o\tp\r\nq\nr\rs", uint8(1))
	f.Add(hostileText(7, 20), uint8(255))
	for _, text := range tightTexts() { // texts that make each term of the bound count
		f.Add(text, uint8(5))
	}
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		for _, a := range []resolver.Answer{
			{Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: chunks(text, int(chunk))}}},
			{Records: []resolver.Record{{Type: resolver.TypeCAA, CAAValue: text}}},
			{CNAMEs: []string{text}, Records: []resolver.Record{{Type: resolver.TypeMX, Target: text}}},
		} {
			values, bytes, ok := answerBound(&a)
			if !ok {
				continue
			}
			gotValues, gotBytes := addedBy(a)
			require.LessOrEqual(t, gotValues, values, "values of %q", text)
			require.LessOrEqual(t, gotBytes, bytes, "bytes of %q", text)
		}
	})
}

// The bounds of a hostile tree's records are close enough for the tree to
// be queued whole: 51 records of 40 mechanisms.
func TestTextBoundHostileTree(t *testing.T) {
	total := 0
	for i := range 51 {
		text := hostileText(i, 20)
		values, bytes, ok := textBound(text, chunks(text, 255))
		require.True(t, ok)
		got, gotBytes := addedBy(resolver.Answer{Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: chunks(text, 255)}}})
		require.LessOrEqual(t, got, values)
		require.LessOrEqual(t, gotBytes, bytes)
		total += values
	}
	require.Less(t, total, MaxValues-500)
}

// Data the bounds do not cover is recorded at once.
func TestAnswerBoundRefuses(t *testing.T) {
	for name, a := range map[string]resolver.Answer{
		"not ASCII":   {Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"v=spf1 include:bücher.example -all"}}}},
		"A-label":     {Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"v=spf1 include:xn--bcher-kva.example -all"}}}},
		"URI and %":   {Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"rua=https://%78n--bcher-kva.example/"}}}},
		"alias label": {CNAMEs: []string{"XN--bcher-kva.example"}},
		"target":      {Records: []resolver.Record{{Type: resolver.TypeMX, Target: "mx.bücher.example"}}},
		"TLSA":        {Records: []resolver.Record{{Type: resolver.TypeTLSA, RData: []byte{3, 1, 1, 0xab, 0xcd}}}},
		"zone":        {Records: []resolver.Record{{Type: resolver.TypeAAAA, Addr: netip.MustParseAddr("fe80::1%eth0")}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, ok := answerBound(&a)
			require.False(t, ok)
			s := NewSet()
			r := s.ScanResolverThen(resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { return a }), nil)
			r.Lookup(context.Background(), "q.example", resolver.TypeTXT)
			s.mu.Lock()
			defer s.mu.Unlock()
			require.Zero(t, s.pendingValues, "queued")
			require.Positive(t, s.store.count, "recorded at once")
		})
	}
}

// Should a queued answer's values not all fit (a bound that was wrong),
// the Set is unguarded when they are recorded: Verify refuses every
// output.
func TestQueuedOverflowFailsClosed(t *testing.T) {
	s := NewSet()
	s.Add(filler(MaxValues-2, 0)...)
	s.mu.Lock()
	// Queued as deferLookup would, with a bound understated by hand.
	s.pending = [][]pendingLookup{{{name: "a.example", records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"v=spf1 include:b.example include:c.example -all"}}}}}}
	s.pendingValues, s.pendingBytes = 1, 9
	s.mu.Unlock()
	require.False(t, s.Overflowed(), "not recorded yet")
	require.ErrorIs(t, s.Verify([]byte(`{"ok":true}`)), ErrUnguarded)
	require.True(t, s.Overflowed())
}

// Every method that reads or adds values records the queue first.
func TestQueueRecordedBeforeReads(t *testing.T) {
	answer := resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Type: resolver.TypeTXT, TXT: []string{"v=spf1 include:_spf.queued.example -all"}}}}
	for name, read := range map[string]func(s *Set) bool{
		"Contains": func(s *Set) bool { return s.Contains("see _spf.queued.example") },
		"Verify":   func(s *Set) bool { return s.Verify([]byte(`{"a":"_spf.queued.example"}`)) != nil },
		"Len":      func(s *Set) bool { return s.Len() == 6 },
		"Bytes":    func(s *Set) bool { return s.Bytes() > 0 },
		"Add":      func(s *Set) bool { s.Add("later.example"); return storeValues(s)[0] == "q.example" },
		"AddText":  func(s *Set) bool { s.AddText("later text"); return storeValues(s)[0] == "q.example" },
		"UseVocabulary": func(s *Set) bool {
			s.UseVocabulary(NewVocabulary("include:_spf.queued.example"))
			return storeValues(s)[0] == "q.example" && s.Contains("include:_spf.queued.example")
		},
		"a lookup recorded at once": func(s *Set) bool {
			s.Resolver(resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { return resolver.Answer{} })).
				Lookup(context.Background(), "r.example", resolver.TypeTXT)
			v := storeValues(s)
			return v[0] == "q.example" && v[len(v)-1] == "r.example"
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := NewSet()
			s.ScanResolverThen(resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { return answer }), nil).
				Lookup(context.Background(), "q.example", resolver.TypeTXT)
			s.mu.RLock()
			require.Positive(t, s.pendingValues, "queued")
			require.Zero(t, s.store.count, "not recorded yet")
			s.mu.RUnlock()
			require.True(t, read(s))
		})
	}
}

// A table by hash readied for more values keeps every value reachable,
// and grows on as before past them.
func TestReserveHashKeepsValues(t *testing.T) {
	for _, before := range []int{0, 10, 300, 2000} {
		t.Run(fmt.Sprint(before), func(t *testing.T) {
			var st valueStore
			put := func(i int) {
				v := fmt.Sprintf("v%05d.example", i)
				putValue(t, &st, v, hashOf([]byte(v)))
			}
			for i := range before {
				put(i)
			}
			st.reserveHash(before + 6000)
			requireSegmentsSound(t, &st)
			for i := before; i < before+7000; i++ {
				put(i)
				if i%500 == 0 {
					requireSegmentsSound(t, &st)
				}
			}
			requireSegmentsSound(t, &st)
			for i := range before + 7000 {
				v := fmt.Sprintf("v%05d.example", i)
				require.GreaterOrEqual(t, st.find([]byte(v), hashOf([]byte(v))), int32(0), v)
			}
		})
	}
}

// A table whose values' hashes share their top bits (as no seed makes
// them, but an attack test can) is readied without a segment past 7/8
// full: each slot held goes in as an insert does, splitting as it needs.
func TestAttackReserveHashCrowded(t *testing.T) {
	oneTop := func(i int) uint64 { return 0x5a5a5a5a_00000000 ^ uint64(uint32(i)<<indexBits&0x000fffff)<<32 }
	var st valueStore
	vals := make([]string, 600)
	for i := range vals {
		vals[i] = fmt.Sprintf("c%05d.example", i)
		putValue(t, &st, vals[i], oneTop(i))
	}
	st.reserveHash(7000)
	requireSegmentsSound(t, &st)
	for i, v := range vals {
		require.GreaterOrEqual(t, st.find([]byte(v), oneTop(i)), int32(0), v)
	}
}

// putValue adds v, new to st, with hash h, where its lookup ended.
func putValue(t *testing.T, st *valueStore, v string, h uint64) {
	t.Helper()
	blk, off := st.reserve(len(v))
	copy(st.span(blk, off, len(v)), v)
	st.take(blk, off+len(v))
	e, at := st.lookup(st.span(blk, off, len(v)), h)
	require.Equal(t, int32(-1), e)
	st.addAt(blk, off, len(v), h, at)
}

// TestASCIIByte: asciiByte[c] is byte c, for every byte textBound counts
// with it, and no byte above them is a line or token break.
func TestASCIIByte(t *testing.T) {
	require.Len(t, asciiByte, 64)
	for c := range byte(64) {
		require.Equal(t, c, asciiByte[c], "byte %d", c)
	}
	for c := 64; c < 256; c++ { // textBound counts only the bytes below 64
		require.False(t, isLineBreak(byte(c)) || isTokenBreak(byte(c)), "byte %d is a break", c)
	}
}
