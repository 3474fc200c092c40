package redact

import (
	"math/bits"
	"sync"
	"unsafe"
)

// longChain is the longest chain of values with the same first 4 bytes
// that the search always walks. A zone can have thousands of values
// recorded that share their first bytes (the pieces of one long name,
// the tokens of a TXT record), and walking them all at every position of
// every string read made the guard's cost grow with what the zone chose
// to send. Past longChain, at a position t[i:], two searches can answer:
// walking the chain, comparing each value; and looking t[i:i+n] up in
// the table by hash for each length n that one of the chain's values has
// (longIndex). Either can cost far more than the other: a walk is cheap
// when the values differ from the text in their first bytes and dear
// when they agree with it for hundreds (about 500 values of 1,000 bytes,
// each differing from a run of one letter near its end, cost 11 µs a
// position); lookups are cheap when the values have few lengths and dear
// when they have hundreds (about 8,000 values, 700 of them of distinct
// lengths, fit the Set's bounds). So longAt walks for as long as the
// walk has cost no more than the lookups would, then looks up: a
// position costs the walk when it is the lesser, else at most about
// twice the lookups.
// A text's cost is still not linear in its length whatever the values:
// that would take one automaton of the long chains' values.
const longChain = 16

// The search's account of what a step costs, in about nanoseconds on
// the development machine (BenchmarkLongChains: a walk's step and a
// lookup cost about the same per unit, so that the search takes the
// cheaper). Walking the chain: per value (reading its entry; a value too
// long for the text or excused ends there), then per piece compared, a
// call and per byte, cmpBytes a ns (a comparison stops at the first
// piece that differs: the pieces are firstPiece bytes, then twice as
// many each time, so that what is charged is at most about twice what
// was read). Looking up: per length of the chain's values (lengthCost,
// the filter), and for a length the filter lets through, per lookup,
// plus per byte hashed, hashBytes a ns. When looking up every length in
// range would cost no more than the least a walk can (walkCost a value),
// the search only looks them up.
const (
	walkCost   = 3
	pieceCost  = 3
	cmpBytes   = 64
	firstPiece = 64
	lengthCost = 4
	lookupCost = 24
	hashBytes  = 32
)

// longIndex holds the lengths of the long chains' values. It is made as
// the search meets a long chain, not as values are recorded: a scan
// whose output meets none (almost every scan, even one that records
// thousands of values) pays nothing for it. The search runs under the
// Set's read lock, which several readers can hold at once, so the index
// has a lock of its own; the values never change (the store only
// appends).
type longIndex struct {
	mu    sync.Mutex
	grams map[uint32]*longGram
}

// longGram is what the index holds of one long chain.
type longGram struct {
	lens   [MaxValueLen/64 + 1]uint64 // bit n set when a value is n bytes long
	ends   []uint64                   // the filter by length and last byte: bit endBit(n, c) set when a value of n bytes ends with c
	maxLen int
	newest int32 // the newest entry noted, -1 when none
}

// The filter by length and last byte: a piece of the searched text that
// no value of its length ends like is not looked up. It has endPerValue
// bits a value of the chain (a false pass for about one piece in 16, if
// each value's length and end were its own), at least endMin, a power of
// two; it grows as the chain does, noting every value again.
const (
	endMin      = 1024
	endPerValue = 16
)

// endWords returns the filter's length in words for a chain of count
// values.
func endWords(count int) int {
	return (1 << bits.Len(uint(max(endMin, endPerValue*count)-1))) / 64
}

// endBit returns the bit of a filter of words words for a value of n
// bytes ending with c.
func endBit(n int, c byte, words int) uint {
	k := bits.TrailingZeros(uint(words)) + 6 // 64*words is 1<<k
	return uint(uint32(n<<8|int(c)) * 0x9e3779b1 >> (32 - k))
}

// next returns the least length of a value that is at least n, or a
// number past hi when none is up to hi.
func (lg *longGram) next(n, hi int) int {
	for n <= hi {
		if w := lg.lens[n/64] >> (n % 64); w != 0 {
			return n + bits.TrailingZeros64(w)
		}
		n = (n/64 + 1) * 64 // on to the next word
	}
	return n
}

// lookups returns what looking up every length in (lo, hi] that a value
// has would cost, unfiltered, stopping once it is past limit.
func (lg *longGram) lookups(lo, hi, limit int) int {
	cost := 0
	for n := lg.next(lo+1, hi); n <= hi && cost <= limit; n = lg.next(n+1, hi) {
		cost += lengthCost + lookupCost + n/hashBytes
	}
	return cost
}

// has reports whether a value is n bytes long.
func (lg *longGram) has(n int) bool { return lg.lens[n/64]&(1<<(n%64)) != 0 }

// mayEnd reports whether a value of n bytes may end with c.
func (lg *longGram) mayEnd(n int, c byte) bool {
	b := endBit(n, c, len(lg.ends))
	return lg.ends[b/64]&(1<<(b%64)) != 0
}

// gram returns the lengths of chain c, whose first 4 bytes are g, with
// its values added since it was last asked for. Called with li.mu held
// and the Set's mu held (read).
func (li *longIndex) gram(st *valueStore, g uint32, c gramSlot) *longGram {
	lg := li.grams[g]
	if lg == nil {
		if li.grams == nil {
			li.grams = map[uint32]*longGram{}
		}
		lg = &longGram{newest: -1}
		li.grams[g] = lg
	}
	head := int32(c.head) - 1
	if words := endWords(int(c.n)); words > len(lg.ends) {
		lg.ends = make([]uint64, words)
		lg.newest = -1 // every value noted again, in the larger filter
	}
	// The chain links the newest entry first: those above newest are new.
	for e := head; e > lg.newest; e = st.at(e).next() {
		v := st.value(e)
		n := len(v)
		lg.lens[n/64] |= 1 << (n % 64)
		b := endBit(n, v[n-1], len(lg.ends))
		lg.ends[b/64] |= 1 << (b % 64)
		lg.maxLen = max(lg.maxLen, n)
	}
	lg.newest = head
	return lg
}

// longAt reports whether a value of the long chain c (first 4 bytes g),
// not allowed and longer than excused bytes, starts at t[i:]. Unless
// looking up every length in range costs no more than the least a walk
// can, it walks the chain for as long as that has cost no more than the
// lookups would (their cost is known before they run, through the
// filter; a walk's is not), then looks the lengths up: a position costs
// the walk when it is the lesser, else at most twice the lookups, plus
// one step and the first estimate (which costs no more than either).
// Called with the Set's mu held (read). It returns what it spent, in the
// account above (without the estimate), for the tests.
func longAt[T byteString](s *Set, g uint32, c gramSlot, t T, i, excused int) (found bool, spent int) {
	li := &s.store.long
	li.mu.Lock()
	defer li.mu.Unlock()
	lg := li.gram(&s.store, g, c)
	lo, hi := max(excused, MinLen-1), min(len(t)-i, lg.maxLen)
	// A string's header is a slice's first two words: t read as a
	// string, without a copy.
	str := *(*string)(unsafe.Pointer(&t))
	walked, looked := 0, 0
	// The lengths that the filter let through as the budget was added
	// up: once the walk stops, the budget has run through every length
	// (m is past hi), and these are looked up without running through
	// the lengths and the filter again (which cost the lookups' account
	// a second time, uncharged).
	var passed [MaxValueLen/64 + 1]uint64
	m := lg.next(lo+1, hi)
	if limit := walkCost * int(c.n); lg.lookups(lo, hi, limit) > limit {
		// What looking up every length would cost is added up only as
		// far as the walk has gone.
		budget := 0
		e := int32(c.head) - 1
		for e >= 0 {
			for walked > budget && m <= hi {
				budget += lengthCost
				if lg.mayEnd(m, str[i+m-1]) {
					budget += lookupCost + m/hashBytes
					passed[m/64] |= 1 << (m % 64)
				}
				m = lg.next(m+1, hi)
			}
			if walked > budget {
				break // the lookups cost less than the walk so far
			}
			x := *s.store.at(e)
			found, cost := walkStep(s, x, str[i:], lo)
			walked += cost
			if found {
				return true, walked
			}
			e = x.next()
		}
		if e < 0 {
			return false, walked // every value compared
		}
		looked = budget
		for w, bits64 := range passed {
			for ; bits64 != 0; bits64 &= bits64 - 1 {
				n := w*64 + bits.TrailingZeros64(bits64)
				piece := str[i : i+n]
				if e := s.store.findString(piece); e >= 0 {
					if _, ok := s.allow[piece]; !ok {
						return true, walked + looked
					}
				}
			}
		}
	}
	for n := m; n <= hi; n = lg.next(n+1, hi) {
		looked += lengthCost
		if lg.mayEnd(n, str[i+n-1]) {
			looked += lookupCost + n/hashBytes
			piece := str[i : i+n]
			if e := s.store.findString(piece); e >= 0 {
				if _, ok := s.allow[piece]; !ok {
					return true, walked + looked
				}
			}
		}
	}
	return false, walked + looked // every value runs past t's end, is excused, or is not there
}

// walkStep compares the value of entry x with the start of t, unless it
// is longer than t or no longer than excused bytes, and reports whether
// they are the same and the value is not allowed, with what that cost in
// the search's account. Called with the Set's mu held (read).
func walkStep(s *Set, x entry, t string, excused int) (found bool, cost int) {
	n := x.n()
	if n > len(t) || n <= excused {
		return false, walkCost
	}
	v := s.store.blocks[x.blk()][x.off() : x.off()+n]
	cost = walkCost
	for k, size := 0, firstPiece; k < n; size *= 2 {
		end := min(n, k+size)
		cost += pieceCost + (end-k)/cmpBytes
		if t[k:end] != string(v[k:end]) {
			return false, cost
		}
		k = end
	}
	_, ok := s.allow[t[:n]]
	return !ok, cost
}
