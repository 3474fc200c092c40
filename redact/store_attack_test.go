package redact

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// Attacks on the value store: in-place views of lower-case texts, the
// byHash slots (tag bits + index), growth at 7/8 (segments that double
// or split), probes 1, 2, 3, ...
// Each is an attack that was tried; each must keep failing.

// TestAttackViewsNeverWritten: lower-case texts (read in place) interleaved
// with mixed-case texts, non-ASCII ones, plain values and addresses
// (written into the store's blocks), enough to fill several blocks and
// grow both tables many times: no caller string changes, every value of
// every text is found, and no entry's block is a view that reserve writes
// into.
func TestAttackViewsNeverWritten(t *testing.T) {
	s := NewSet()
	var texts, clones []string
	for i := range 600 {
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf("v=spf1 include:_spf%d.lower.example ip4:198.51.%d.%d -all", i, i/250, i%250)
		case 1:
			text = fmt.Sprintf("v=spf1 Include:_SPF%d.Mixed.example -all", i)
		case 2:
			text = fmt.Sprintf("rua=mailto:r%d@bücher.example", i)
		default:
			text = fmt.Sprintf("https://host%d.url.example/x?y xn--bcher-kva%d.example", i, i)
		}
		texts = append(texts, text)
		clones = append(clones, strings.Clone(text))
		s.AddText(text)
		s.Add(fmt.Sprintf("VALUE%d.add.example", i))
	}
	for i, text := range texts {
		require.Equal(t, clones[i], text, "text %d was written", i)
	}
	cur := -1
	if s.store.cur > 0 {
		cur = s.store.cur - 1
	}
	for k, b := range s.store.blocks {
		for i, text := range texts {
			if len(b) > 0 && unsafe.SliceData(b) == unsafe.StringData(text) {
				require.NotEqual(t, cur, k, "text %d's view is the block reserve writes into", i)
				require.Equal(t, len(b), cap(b), "a view has room")
			}
		}
	}
	for i := range 600 {
		var v string
		switch i % 4 {
		case 0:
			v = fmt.Sprintf("_spf%d.lower.example", i)
		case 1:
			v = fmt.Sprintf("_spf%d.mixed.example", i)
		case 2:
			v = fmt.Sprintf("r%d@bücher.example", i)
		default:
			v = fmt.Sprintf("host%d.url.example", i)
		}
		require.True(t, s.Contains("x "+strings.ToUpper(v)+" y"), "value %q missed", v)
		require.ErrorIs(t, s.Verify([]byte(`{"k":"`+v+`"}`)), ErrLeak, "value %q missed", v)
		require.True(t, s.Contains(fmt.Sprintf("value%d.add.example", i)))
	}
}

// TestAttackViewDroppedThenBlockReused: a lower-case text that records
// nothing (its view dropped) right after one that did, then a text with
// upper case that is written where the dropped view's index was: the
// earlier values still read their own bytes.
func TestAttackViewDroppedThenBlockReused(t *testing.T) {
	s := NewSet()
	s.AddText("first.lower.example")
	s.AddText("1234 5678 12 34")     // lower case, nothing worth recording: view dropped
	s.AddText("first.lower.example") // duplicates only: view dropped
	s.AddText("SECOND.UPPER.example")
	s.AddText("third.lower.example")
	for _, v := range []string{"first.lower.example", "second.upper.example", "third.lower.example"} {
		require.True(t, s.Contains(v), v)
	}
	require.Equal(t, 3, s.Len())
}

// TestAttackViewsPastMaxViews: with the store already at maxViews blocks
// (views of other texts), a lower-case text is copied instead; its
// values are found and it is not written.
func TestAttackViewsPastMaxViews(t *testing.T) {
	s := NewSet()
	filler := "filler.view.example"
	for range maxViews - 1 {
		_, ok := s.store.view(filler)
		require.True(t, ok)
	}
	s.AddText("a.last-view.example")  // the last view: len(blocks) reaches maxViews
	s.AddText("b.after-max.example")  // copied
	s.AddText("C.AFTER-MAX.example")  // copied
	s.AddText("d.after-max2.example") // copied
	require.LessOrEqual(t, len(s.store.blocks), maxViews+1)
	for _, v := range []string{"a.last-view.example", "b.after-max.example", "c.after-max.example", "d.after-max2.example"} {
		require.True(t, s.Contains(v), v)
	}
}

// TestAttackHashSlotCollisions drives the table by hash directly with
// chosen hashes: every value with the same hash (same tag, same first
// slot), then hashes that share the first slot but not the tag, then
// hashes that share the tag but not the first slot, past several
// doublings and up to MaxValues entries. Every value is found again as
// itself and only itself, and a value not added is never found.
func TestAttackHashSlotCollisions(t *testing.T) {
	hashes := map[string]func(i int) uint64{
		"same hash":        func(int) uint64 { return 0xdeadbeef_00000000 },
		"same slot no tag": func(i int) uint64 { return uint64(0xfc000000|uint32(i)<<indexBits&0x03ffffff) << 32 },
		"same tag low":     func(i int) uint64 { return 0xabcd0000_00000000 | uint64(i) },
		"top bits zero":    func(i int) uint64 { return uint64(uint32(i)<<indexBits&0x0003ffff) << 32 },
		"spread":           func(i int) uint64 { return uint64(uint32(i)*0x9e3779b1) << 32 },
	}
	for name, hash := range hashes {
		t.Run(name, func(t *testing.T) {
			var st valueStore
			n := MaxValues
			if name == "same hash" || name == "same tag low" {
				n = 1500 // a chain as long as the table: quadratic, keep it short
			}
			vals := make([]string, n)
			for i := range n {
				vals[i] = fmt.Sprintf("v%05d.example", i)
				blk, off := st.reserve(len(vals[i]))
				copy(st.span(blk, off, len(vals[i])), vals[i])
				f := st.span(blk, off, len(vals[i]))
				require.EqualValues(t, -1, st.find(f, hash(i)), "%q found before it was added", vals[i])
				st.take(blk, off+len(vals[i]))
				st.add(blk, off, len(vals[i]), hash(i))
			}
			requireSegmentsSound(t, &st)
			for i, v := range vals {
				e := st.find([]byte(v), hash(i))
				require.GreaterOrEqual(t, e, int32(0), "%q not found", v)
				require.Equal(t, v, string(st.value(e)))
				require.EqualValues(t, -1, st.find([]byte(v+"x"), hash(i)))
			}
		})
	}
}

// TestAttackDuplicatesAcrossGrowth: the same values added again after
// the table grew (7/8) are duplicates, whether they came through Add, a
// lower-case text (a view) or a mixed-case one (a copy): the Set never
// holds one twice, and fills at MaxValues exactly.
func TestAttackDuplicatesAcrossGrowth(t *testing.T) {
	s := NewSet()
	const n = 7000
	for i := range n {
		s.Add(fmt.Sprintf("dup%d.example", i))
	}
	require.Equal(t, n, s.Len())
	for i := range n {
		switch i % 3 {
		case 0:
			s.AddText(fmt.Sprintf("dup%d.example", i))
		case 1:
			s.AddText(fmt.Sprintf("DUP%d.EXAMPLE", i))
		default:
			s.Add(fmt.Sprintf("Dup%d.Example.", i))
		}
	}
	require.Equal(t, n, s.Len(), "a duplicate was recorded again")
	require.False(t, s.Overflowed())
	for i := n; s.Len() < MaxValues-1; i++ {
		s.Add(fmt.Sprintf("new%d.example", i))
	}
	require.False(t, s.Overflowed())
	s.Add("last.example")
	require.False(t, s.Overflowed())
	require.Equal(t, MaxValues, s.Len())
	s.Add("one-more.example")
	require.True(t, s.Overflowed())
	require.ErrorIs(t, s.Verify([]byte(`{}`)), ErrUnguarded)
}

// TestAttackConcurrentViewsAndVerify: texts read in place by one Set
// from several goroutines while others verify (go test -race).
func TestAttackConcurrentViewsAndVerify(t *testing.T) {
	s := NewSet()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				s.AddText(fmt.Sprintf("txt g%d-%d.conc.example", g, i))
				require.True(t, s.Contains(fmt.Sprintf("G%d-%d.CONC.example", g, i)))
			}
		})
		wg.Go(func() {
			for i := range 300 {
				_ = s.Verify([]byte(fmt.Sprintf(`{"a":"g%d-%d.conc.example"}`, g, i)))
			}
		})
	}
	wg.Wait()
	require.Equal(t, 2*4*300, s.Len()) // each text and its token
}

// requireSegmentsSound checks the table by hash of st: every directory
// index points to a segment at most 7/8 full whose depth bits are the
// index's top bits, shared by every slot it holds, the slots hold every
// entry once, and a lookup finds each: it reads only the key bits a
// slot keeps, so the slot's own bits stand for its value's hash.
func requireSegmentsSound(t *testing.T, st *valueStore) {
	t.Helper()
	require.Len(t, st.byHash, 1<<st.hashDepth)
	seen := map[*hashSegment]bool{}
	slots := 0
	for i, seg := range st.byHash {
		require.LessOrEqual(t, seg.depth, st.hashDepth)
		require.LessOrEqual(t, seg.depth, maxHashDepth)
		require.LessOrEqual(t, 8*seg.used, 7*len(seg.slots))
		prefix := uint32(i) >> (st.hashDepth - seg.depth)
		used := 0
		for _, slot := range seg.slots {
			if slot == 0 {
				continue
			}
			used++
			if seg.depth > 0 {
				require.Equal(t, prefix, slot>>(32-seg.depth), "a slot in the wrong segment")
			}
			e := int32(slot&indexMask) - 1
			require.Equal(t, e, st.find(st.value(e), uint64(slot&^indexMask)<<32), "a slot a lookup does not reach")
		}
		require.Equal(t, seg.used, used)
		if !seen[seg] {
			seen[seg] = true
			slots += used
		}
	}
	require.Equal(t, st.count, slots)
}

// TestAttackHashSegmentsSplit: values with spread hashes fill many
// segments, each split off by its own bits; values whose hashes share
// their top bits all go to one segment, which splits down to
// maxHashDepth and then doubles in place. Every value is found.
func TestAttackHashSegmentsSplit(t *testing.T) {
	for name, hash := range map[string]func(i int) uint64{
		"spread":   func(i int) uint64 { return uint64(uint32(i)*0x9e3779b1) << 32 },
		"one path": func(i int) uint64 { return 0x5a5a5a5a_00000000 ^ uint64(uint32(i)<<indexBits&0x000fffff)<<32 },
	} {
		t.Run(name, func(t *testing.T) {
			var st valueStore
			vals := make([]string, 3000)
			for i := range vals {
				vals[i] = fmt.Sprintf("s%05d.example", i)
				blk, off := st.reserve(len(vals[i]))
				copy(st.span(blk, off, len(vals[i])), vals[i])
				st.take(blk, off+len(vals[i]))
				st.add(blk, off, len(vals[i]), hash(i))
			}
			requireSegmentsSound(t, &st)
			require.Greater(t, st.hashDepth, 2)
			for i, v := range vals {
				e := st.find([]byte(v), hash(i))
				require.GreaterOrEqual(t, e, int32(0), "%q not found", v)
				require.Equal(t, v, string(st.value(e)))
			}
		})
	}
}

// TestAttackSplitsKeepValuesReachable: after every few values added,
// through segments doubling and splitting, every value is still reached
// by a lookup.
func TestAttackSplitsKeepValuesReachable(t *testing.T) {
	for name, hash := range map[string]func(i int) uint64{
		"spread":   func(i int) uint64 { return uint64(uint32(i)*0x9e3779b1) << 32 },
		"crowded":  func(i int) uint64 { return uint64(uint32(i%97)<<25|uint32(i)*0x9e3779b1>>7) << 32 },
		"one path": func(i int) uint64 { return 0x5a5a5a5a_00000000 ^ uint64(uint32(i)<<indexBits&0x000fffff)<<32 },
	} {
		t.Run(name, func(t *testing.T) {
			var st valueStore
			for i := range 2500 {
				v := fmt.Sprintf("r%05d.example", i)
				blk, off := st.reserve(len(v))
				copy(st.span(blk, off, len(v)), v)
				st.take(blk, off+len(v))
				st.add(blk, off, len(v), hash(i))
				if i%37 == 0 || i > 2400 {
					requireSegmentsSound(t, &st)
				}
			}
			requireSegmentsSound(t, &st)
		})
	}
}

// TestAttackStalePlace: a place a lookup returned is used only while the
// table is as it was: after other values went in (segments grown and
// split), adding with the stale place still leaves every value findable.
func TestAttackStalePlace(t *testing.T) {
	var st valueStore
	hashes := map[string]uint64{}
	put := func(v string, at hashPlace) {
		blk, off := st.reserve(len(v))
		copy(st.span(blk, off, len(v)), v)
		st.take(blk, off+len(v))
		st.addAt(blk, off, len(v), hashes[v], at)
	}
	for i := range 2000 {
		v := fmt.Sprintf("stale%05d.example", i)
		hashes[v] = uint64(uint32(len(hashes))*0x9e3779b1) << 32
		_, at := st.lookup([]byte(v), hashes[v])
		if i%7 == 6 {
			for k := range 40 { // others go in between the lookup and the add
				w := fmt.Sprintf("other%05d-%d.example", i, k)
				hashes[w] = uint64(uint32(len(hashes))*0x9e3779b1) << 32
				put(w, hashPlace{})
			}
		}
		put(v, at)
	}
	requireSegmentsSound(t, &st)
	for v, h := range hashes {
		require.GreaterOrEqual(t, st.find([]byte(v), h), int32(0), "%q not found", v)
	}
}
