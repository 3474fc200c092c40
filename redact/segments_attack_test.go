package redact

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hash shapes that stress the segment directory: clustered prefixes of
// every length, full tag collisions, identical keys. Each value is added
// through lookup+addAt (the place reused), sometimes with adds between.
func TestAttackSegmentsClustered(t *testing.T) {
	for shape := range 6 {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("shape%d/seed%d", shape, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, uint64(shape)))
				key := func() uint32 {
					switch shape {
					case 0: // random
						return r.Uint32()
					case 1: // share top p bits with a few prefixes
						p := r.IntN(19)
						base := []uint32{0xdeadbeef, 0x12345678, 0xffffffff, 0}[r.IntN(4)]
						mask := ^uint32(0) << (32 - p)
						if p == 0 {
							mask = 0
						}
						return base&mask | r.Uint32()&^mask
					case 2: // full tag collision, random index bits
						return 0xabcd0000&^indexMask | r.Uint32()&indexMask
					case 3: // one key
						return 0x80000000
					case 4: // vary only the depth bits
						return r.Uint32() & 0xffc00000
					default: // vary only the in-segment bits
						return 0x5a400000 | r.Uint32()&0x003fc000
					}
				}
				var st valueStore
				type kv struct {
					v string
					h uint64
				}
				var all []kv
				put := func(v string, h uint64, at hashPlace) {
					blk, off := st.reserve(len(v))
					copy(st.span(blk, off, len(v)), v)
					st.take(blk, off+len(v))
					st.addAt(blk, off, len(v), h, at)
					all = append(all, kv{v, h})
				}
				n := MaxValues
				if shape == 3 || shape == 2 {
					n = 3000
				}
				for i := 0; len(all) < n; i++ {
					v := fmt.Sprintf("v%06d.example", i)
					h := uint64(key())<<32 | uint64(r.Uint32())
					e, at := st.lookup([]byte(v), h)
					require.Less(t, e, int32(0))
					if r.IntN(5) == 0 {
						for k := range r.IntN(300) {
							if len(all)+1 >= n {
								break
							}
							w := fmt.Sprintf("w%06d-%d.example", i, k)
							put(w, uint64(key())<<32, hashPlace{})
						}
					}
					put(v, h, at)
					if len(all)%512 == 0 {
						requireSegmentsSound(t, &st)
					}
				}
				requireSegmentsSound(t, &st)
				for _, x := range all {
					e := st.find([]byte(x.v), x.h)
					require.GreaterOrEqual(t, e, int32(0), "%q not found", x.v)
					require.Equal(t, x.v, string(st.value(e)))
				}
			})
		}
	}
}

// Entry packing at the limits of each field.
func TestEntryPackingLimits(t *testing.T) {
	for _, blk := range []int{0, 1, 1<<blkBits - 1} {
		for _, off := range []int{0, 1, maxText - 1} {
			for _, n := range []int{0, 1, MaxValueLen, 1<<lenBits - 1} {
				x := makeEntry(blk, off, n)
				require.Equal(t, blk, x.blk())
				require.Equal(t, off, x.off())
				require.Equal(t, n, x.n())
				require.Equal(t, int32(-1), x.next())
				x |= entry(indexMask)
				require.Equal(t, blk, x.blk())
				require.Equal(t, off, x.off())
				require.Equal(t, n, x.n())
				require.Equal(t, int32(indexMask-1), x.next())
			}
		}
	}
}
