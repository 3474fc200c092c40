package redact

import (
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// valueStore holds a Set's recorded values in compact form: their
// lower-case bytes back to back in a few large blocks (or, for a text
// already in lower-case ASCII, in the text itself), 8 bytes of entry
// per value, and two open-addressing tables of small integers, one by the
// value's hash (to find a duplicate: a 4-byte slot per value, up to 7/8
// full, that holds the entry's index and the hash's high bits; its
// segments split one at a time, see hashSegment) and one by its first 4
// bytes (for the search). A value is often a piece of a text stored once
// (the tokens of an SPF record point into the record's own bytes), and no
// value costs a map entry, a string header or an allocation of its own.
type valueStore struct {
	blocks    [][]byte       // len: the bytes in use; a new block when one is full; views (see view)
	cur       int            // index + 1 of the block reserve writes into, 0 when none
	next      int            // capacity of the next block
	pages     [][]entry      // the entries, pageSize to a page: growing copies none
	count     int            // entries
	byHash    []*hashSegment // the directory of the table by hash: 1<<hashDepth segments
	hashDepth int
	seg0      hashSegment           // the first segment
	dir0      [1]*hashSegment       // the first directory
	splitBuf  *[segmentSlots]uint32 // the slots of a segment being split; made at the first split
	byGram    []gramSlot            // a power of two long
	grams     int                   // used slots of byGram
	long      longIndex             // the grams whose chain is longer than longChain, found by length
	first2    [prefixBits / 64]uint64
	bytes     int // the bytes of the values (a piece shared by two counts twice)
}

// entry locates one recorded value, packed in 64 bits, from the lowest:
// the index + 1 of the previous entry with the same first 4 bytes (0
// when none; indexBits), the value's length (lenBits), its block
// (blkBits) and its offset in the block (offBits).
type entry uint64

// The widths of an entry's fields.
const (
	lenBits = 11
	blkBits = 16
	offBits = 64 - indexBits - lenBits - blkBits
	// maxText is the longest text whose values are recorded as pieces of
	// its bytes (read in place, or lower-cased once into one block), so
	// that no block is longer and every offset fits offBits: the values
	// of a longer text are copied one by one, as those of a text that is
	// not ASCII are.
	maxText = 1 << offBits
)

// Every length fits lenBits, a written block (at most maxBlock, or one
// text) fits offBits, and every block index (maxViews) fits blkBits.
var (
	_ [1<<lenBits - 1 - MaxValueLen]struct{}
	_ [maxText - maxBlock]struct{}
	_ [1<<blkBits - 2*maxViews]struct{}
)

// makeEntry returns the entry of the n bytes at off in block blk, with
// no previous entry.
func makeEntry(blk, off, n int) entry {
	return entry(uint64(off)<<(64-offBits) | uint64(blk)<<(indexBits+lenBits) | uint64(n)<<indexBits)
}

func (x entry) off() int { return int(x >> (64 - offBits)) }
func (x entry) blk() int { return int(x>>(indexBits+lenBits)) & (1<<blkBits - 1) }
func (x entry) n() int   { return int(x>>indexBits) & (1<<lenBits - 1) }

// next returns the previous entry with the same first 4 bytes, or -1.
func (x entry) next() int32 { return int32(x&indexMask) - 1 }

// A slot of the table by hash holds an entry's index + 1 in its low
// indexBits bits and the top 32 - indexBits bits of the 32-bit hash key
// (hashKey) of its value in the others: a probe compares those bits
// before it reads an entry, and a segment that grows places a slot again
// from its own bits (see hashSegment).
const (
	indexBits = 14
	indexMask = 1<<indexBits - 1
)

// Every entry index + 1 fits in indexBits: MaxValues entries at most (see
// Set.full), and answerValues's Set is bounded the same way.
var _ [indexMask - MaxValues]struct{}

// maxHashLog is the number of key bits a slot keeps: those a segment is
// chosen by (its depth) and those that place a slot in it.
const maxHashLog = 32 - indexBits

// hashSegment is one segment of the table by hash (extendible hashing):
// the slots whose key starts with the same depth bits, which the
// directory (byHash, indexed by the key's top hashDepth bits) points to
// from every index with that prefix. A slot's place in its segment is
// the key bits just above indexBits, probed from there by 1, 2, 3, ...
// slots (a power of two long: every slot is visited). A segment 7/8 full
// splits in two by its next key bit (growSegment): the table grows one
// segment at a time, never copying the others, so a Set that grows to
// thousands of values allocates about the table it ends with, not that
// plus every smaller one it doubled from.
type hashSegment struct {
	depth int // the key bits its slots share
	used  int
	slots []uint32 // 0 when free; a power of two long
}

// Segment sizes: the first starts small (a scan records a few dozen
// values) and doubles in place up to segmentSlots; then segments split.
// One at maxHashDepth doubles in place instead: its key bits choose no
// further (only values whose hashes share their top maxHashDepth bits,
// which a random seed makes as rare as any collision, ever get there).
const (
	firstSegment = 64
	segmentBits  = 8
	segmentSlots = 1 << segmentBits
	maxHashDepth = maxHashLog - segmentBits
)

// A segment's depth bits and the bits placing a slot in a segment of
// segmentSlots are distinct key bits, all kept in the slot.
var _ [maxHashLog - maxHashDepth - segmentBits]struct{}

// fullSegment is a segment that split off another, with its slots in one
// allocation.
type fullSegment struct {
	hashSegment
	arr [segmentSlots]uint32
}

// hashKey is the 32 bits of a value's hash that byHash uses.
func hashKey(h uint64) uint32 { return uint32(h >> 32) }

// gramSlot is one slot of the table by first 4 bytes: the newest entry
// starting with gram, whose next field links the older ones.
type gramSlot struct {
	gram uint32
	head uint16 // entry index + 1, 0 when free
	n    uint16 // the entries in the chain
}

// An entry index + 1, and so a chain's length, fits a gramSlot's 16 bits.
var _ [1<<16 - 1 - indexMask]struct{}

// Block sizes: the first is small (a scan records a few kilobytes), the
// next ones double up to maxBlock; a text longer than that gets a block
// of its own size.
const (
	firstBlock = 2 << 10
	maxBlock   = 64 << 10
)

var hashSeed = maphash.MakeSeed()

func hashOf(f []byte) uint64 { return maphash.Bytes(hashSeed, f) }

// pageSize is the number of entries of a page: 4 KiB. The first page
// grows up to it, so that a scan's few dozen values take little.
const pageSize = 512

// at returns entry e.
func (st *valueStore) at(e int32) *entry { return &st.pages[e/pageSize][e%pageSize] }

// push appends an entry.
func (st *valueStore) push(x entry) {
	k := len(st.pages) - 1
	if k < 0 || len(st.pages[k]) == pageSize {
		size := pageSize
		if k < 0 {
			size = 16 // the first page grows by append
		}
		st.pages = append(st.pages, make([]entry, 0, size))
		k++
	}
	st.pages[k] = append(st.pages[k], x)
	st.count++
}

// value returns the bytes of entry e.
func (st *valueStore) value(e int32) []byte {
	x := *st.at(e)
	return st.blocks[x.blk()][x.off() : x.off()+x.n()]
}

// reserve returns a block and offset with room for n bytes, beyond the
// bytes in use: the caller writes there and then either keeps them
// (take) or leaves them to be overwritten.
func (st *valueStore) reserve(n int) (blk, off int) {
	if k := st.cur - 1; k >= 0 && cap(st.blocks[k])-len(st.blocks[k]) >= n {
		return k, len(st.blocks[k])
	}
	size := max(st.next, firstBlock)
	st.next = min(2*size, maxBlock)
	st.blocks = append(st.blocks, make([]byte, 0, max(size, n)))
	st.cur = len(st.blocks)
	return st.cur - 1, 0
}

// maxViews bounds the blocks that views add: entry.blk indexes every
// block in 16 bits, and a written block holds at least firstBlock bytes,
// so the written ones stay far below the rest.
const maxViews = 1 << 15

// view adds the bytes of text, which is lower-case ASCII, as a block of
// their own, read in place: no copy. It reports false, adding nothing,
// when the store holds maxViews blocks already.
//
// The block aliases the string's memory, which must never be written: a
// view is never the block reserve writes into (cur), its capacity is its
// length, so take never extends it, and it is only ever read (span,
// value).
func (st *valueStore) view(text string) (blk int, ok bool) {
	if len(text) == 0 || len(st.blocks) >= maxViews {
		return 0, false
	}
	st.blocks = append(st.blocks, unsafe.Slice(unsafe.StringData(text), len(text)))
	return len(st.blocks) - 1, true
}

// unview drops the view blk when no block was added after it (its
// values, if any, are recorded: the caller drops a view none of whose
// bytes a value holds).
func (st *valueStore) unview(blk int) {
	if blk == len(st.blocks)-1 {
		st.blocks[blk] = nil
		st.blocks = st.blocks[:blk]
	}
}

// span returns the n bytes at off in block blk, in use or reserved.
func (st *valueStore) span(blk, off, n int) []byte { return st.blocks[blk][off : off+n] }

// take marks the bytes of block blk up to end as in use.
func (st *valueStore) take(blk, end int) {
	if b := st.blocks[blk]; end > len(b) {
		st.blocks[blk] = b[:end]
	}
}

// segment returns the segment of the table by hash for key k.
func (st *valueStore) segment(k uint32) *hashSegment {
	return st.byHash[k>>(32-st.hashDepth)]
}

// start returns the first slot of seg to probe for key k.
func (seg *hashSegment) start(k uint32) int {
	return int(k>>indexBits) & (len(seg.slots) - 1)
}

// find returns the entry holding f, whose hash is h, or -1.
func (st *valueStore) find(f []byte, h uint64) int32 {
	e, _ := st.lookup(f, h)
	return e
}

// hashPlace is where a lookup by hash that found nothing ended: the free
// slot i of seg, where put would place the value (seg nil when the table
// is empty), while the store held count entries (the table changes only
// as an entry is added).
type hashPlace struct {
	seg   *hashSegment
	i     int
	count int
}

// findString returns the entry holding f, or -1.
func (st *valueStore) findString(f string) int32 {
	e, _ := lookupIn(st, f, maphash.String(hashSeed, f))
	return e
}

// lookup is find, that also returns, when it finds nothing, the place
// where it stopped: add places the value there at once, rather than
// probe again, when the table has not changed since.
func (st *valueStore) lookup(f []byte, h uint64) (int32, hashPlace) { return lookupIn(st, f, h) }

// lookupIn is lookup for a string or bytes (hashOf and maphash.String
// hash the same bytes alike).
func lookupIn[T byteString](st *valueStore, f T, h uint64) (int32, hashPlace) {
	if len(st.byHash) == 0 {
		return -1, hashPlace{}
	}
	k := hashKey(h)
	tag := k &^ indexMask
	seg := st.segment(k)
	mask := len(seg.slots) - 1
	for i, step := seg.start(k), 1; ; i, step = (i+step)&mask, step+1 {
		slot := seg.slots[i]
		if slot == 0 {
			return -1, hashPlace{seg, i, st.count}
		}
		if slot&^indexMask != tag {
			continue
		}
		e := int32(slot&indexMask) - 1
		if st.at(e).n() == len(f) && string(st.value(e)) == string(f) {
			return e, hashPlace{}
		}
	}
}

// add records the n bytes at off in block blk (hash h) as a new value;
// the caller has checked that it is not a duplicate and has taken them.
func (st *valueStore) add(blk, off, n int, h uint64) { st.addAt(blk, off, n, h, hashPlace{}) }

// addAt is add, given where the lookup of the value ended (lookup), or
// the zero hashPlace: the value's slot goes there when the table has not
// changed since and its segment need not grow; otherwise where put finds.
func (st *valueStore) addAt(blk, off, n int, h uint64, at hashPlace) {
	e := int32(st.count)
	f := st.span(blk, off, n)
	g := gram(f)
	st.push(makeEntry(blk, off, n))
	st.bytes += n
	slot := hashKey(h)&^indexMask | uint32(e+1)
	if seg := at.seg; seg != nil && at.count == int(e) && 8*(seg.used+1) <= 7*len(seg.slots) {
		seg.slots[at.i] = slot
		seg.used++
	} else {
		st.insertHash(slot)
	}
	if 2*(st.grams+1) > len(st.byGram) {
		st.regram()
	}
	gs := st.gramSlot(g)
	if gs.head == 0 {
		gs.gram = g
		st.grams++
	}
	*st.at(e) |= entry(gs.head) // the previous entry's index + 1
	gs.head = uint16(e + 1)
	gs.n++
	w, bit := prefixBit(f[0], f[1])
	st.first2[w] |= bit
}

// insertHash places slot (see indexBits) in the table by hash, growing
// the segment it belongs to first when that is 7/8 full.
func (st *valueStore) insertHash(slot uint32) {
	if len(st.byHash) == 0 {
		st.seg0.slots = make([]uint32, firstSegment)
		st.dir0[0] = &st.seg0
		st.byHash = st.dir0[:]
	}
	k := slot &^ indexMask
	for {
		seg := st.segment(k)
		if 8*(seg.used+1) <= 7*len(seg.slots) {
			seg.put(slot)
			return
		}
		st.growSegment(seg)
	}
}

// reserveHash readies the table by hash for about n values (those held
// included) when they take more than one segment: a directory of as many
// full segments as n values fill to 7/8 at most (up to maxHashDepth bits),
// each slot held placed again, rather than the segments splitting one by
// one, each split placing a segment's slots again, as the values arrive.
// A table that deep already is left as it is.
func (st *valueStore) reserveHash(n int) {
	const per = segmentSlots * 7 / 8
	if n <= per {
		return
	}
	depth := min(bits.Len(uint((n-1)/per)), maxHashDepth)
	if depth <= st.hashDepth {
		return
	}
	old := st.byHash
	segs := make([]hashSegment, 1<<depth)
	slots := make([]uint32, len(segs)*segmentSlots)
	st.byHash = make([]*hashSegment, len(segs))
	st.hashDepth = depth
	for i := range segs {
		segs[i] = hashSegment{depth: depth, slots: slots[i*segmentSlots : (i+1)*segmentSlots : (i+1)*segmentSlots]}
		st.byHash[i] = &segs[i]
	}
	for i, seg := range old {
		if i > 0 && old[i-1] == seg {
			continue // a segment the directory points to from several indexes, in a run
		}
		for _, slot := range seg.slots {
			if slot != 0 {
				st.insertHash(slot) // grows a segment 7/8 full, as ever
			}
		}
	}
}

// put places slot in seg, which has room. The probe sequence (find's)
// steps by 1, 2, 3, ... slots: in a segment a power of two long it
// visits every slot, and it keeps the probes short at 7/8 full, where
// stepping by one slot makes long runs.
func (seg *hashSegment) put(slot uint32) {
	mask := len(seg.slots) - 1
	i, step := seg.start(slot&^indexMask), 1
	for seg.slots[i] != 0 {
		i, step = (i+step)&mask, step+1
	}
	seg.slots[i] = slot
	seg.used++
}

// growSegment makes room in seg: it doubles in place while it is shorter
// than segmentSlots or at maxHashDepth, and otherwise splits in two by
// the key bit after its depth (doubling the directory first when its
// depth is the directory's), each slot placed again from its own bits.
func (st *valueStore) growSegment(seg *hashSegment) {
	if len(seg.slots) != segmentSlots || seg.depth == maxHashDepth {
		old := seg.slots
		seg.slots, seg.used = make([]uint32, 2*len(old)), 0
		for _, slot := range old {
			if slot != 0 {
				seg.put(slot)
			}
		}
		return
	}
	if seg.depth == st.hashDepth {
		dir := make([]*hashSegment, 2*len(st.byHash))
		for i, s := range st.byHash {
			dir[2*i], dir[2*i+1] = s, s
		}
		st.byHash = dir
		st.hashDepth++
	}
	if st.splitBuf == nil {
		// Not an array on the stack: a split runs under a lookup, on the
		// stack of every lookup goroutine, which 1 KiB more could make grow.
		st.splitBuf = new([segmentSlots]uint32)
	}
	old := st.splitBuf
	copy(old[:], seg.slots)
	clear(seg.slots)
	seg.used = 0
	bit := uint32(1) << (31 - seg.depth) // the key bit after the shared ones
	seg.depth++
	sib := &fullSegment{hashSegment: hashSegment{depth: seg.depth}}
	sib.slots = sib.arr[:]
	for _, slot := range old {
		switch {
		case slot == 0:
		case slot&bit != 0:
			sib.put(slot)
		default:
			seg.put(slot)
		}
	}
	shift := st.hashDepth - seg.depth // the directory's index bits after the segment's
	for i, s := range st.byHash {
		if s == seg && (i>>shift)&1 == 1 {
			st.byHash[i] = &sib.hashSegment
		}
	}
}

// gramIndex returns the slot of byGram for gram g: its own, or the free
// slot where it belongs.
func (st *valueStore) gramIndex(g uint32) int {
	mask := len(st.byGram) - 1
	shift := 32 - bits.Len(uint(mask))
	i := int((g*0x9e3779b1)>>shift) & mask
	for st.byGram[i].head != 0 && st.byGram[i].gram != g {
		i = (i + 1) & mask
	}
	return i
}

func (st *valueStore) gramSlot(g uint32) *gramSlot { return &st.byGram[st.gramIndex(g)] }

// regram doubles the table by first 4 bytes, keeping each chain.
func (st *valueStore) regram() {
	old := st.byGram
	st.byGram = make([]gramSlot, max(64, 2*len(old)))
	for _, s := range old {
		if s.head != 0 {
			st.byGram[st.gramIndex(s.gram)] = s
		}
	}
}

// chain returns the slot of the entries whose first 4 bytes are g (the
// zero slot when there are none).
func (st *valueStore) chain(g uint32) gramSlot {
	if len(st.byGram) == 0 {
		return gramSlot{}
	}
	return st.byGram[st.gramIndex(g)]
}
