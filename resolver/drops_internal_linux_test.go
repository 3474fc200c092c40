//go:build linux && !386

package resolver

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKernelDropsEvict: a lookup took an answer a cache keeps, and its
// query is a tombstone on a socket. A forger who won knows the port and
// floods it so that the kernel drops the real reply (here: a receive
// buffer of 64 KiB asked, and the reader held in its handling of the
// first datagram, under s.mu, while 2,000 more come). Once the reader goes
// on, the kernel's drop count has grown with the buffer full: the answer
// is evicted, though the reply that would contradict it never came, and a
// lookup in flight on the socket is tainted. The control: datagrams that
// the buffer takes evict nothing. Both with the watcher reading the
// socket and with a reader of its own.
func TestKernelDropsEvict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flood   int
		evicted bool
		readers bool
	}{{"flood", 2000, true, false}, {"no overflow", 8, false, false}, {"flood, own reader", 2000, true, true}, {"no overflow, own reader", 8, false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			pc, p, u, s := socketTo(t, tc.readers)
			require.NoError(t, s.conn.SetReadBuffer(64<<10))

			// The ended lookup: it took an answer a cache keeps (conflict
			// set), and its query stays as a tombstone.
			var evicted atomic.Bool
			ended := queryEntry(t, u, "ended.example.test.")
			ended.w.conflict = conflictFunc(func() { evicted.Store(true) })
			endedID, ok := s.register(&ended)
			require.True(t, ok)
			taken := new(dns.Msg)
			taken.SetQuestion(ended.name, dns.TypeA)
			ended.w.decide(taken, 0)
			s.bury(endedID)
			// A lookup in flight on the same socket.
			live := queryEntry(t, u, "live.example.test.")
			liveID, ok := s.register(&live)
			require.True(t, ok)
			t.Cleanup(func() { s.release(endedID); s.release(liveID) }) // then retired, s closes, and its reader ends

			junk := func() {
				m := new(dns.Msg)
				m.SetQuestion("junk.example.test.", dns.TypeA)
				m.Id, m.Response = endedID^0x5a5a, true
				b, err := m.Pack()
				require.NoError(t, err)
				_, err = pc.WriteTo(b, s.conn.LocalAddr())
				require.NoError(t, err)
			}
			s.mu.Lock()
			junk() // the reader takes it, and waits for s.mu in its handling
			require.Eventually(t, func() bool { return stackHas("(*socket).handle") }, 30*time.Second, time.Millisecond)
			for range tc.flood {
				junk()
			}
			s.mu.Unlock()
			if tc.evicted {
				require.Eventually(t, evicted.Load, 30*time.Second, time.Millisecond, "the flood did not evict the ended lookup's answer")
				assert.True(t, live.w.tainted.Load(), "the lookup in flight is tainted")
				return
			}
			// The datagrams all fit: each is read and dropped as junk.
			require.Eventually(t, func() bool {
				return p.drops[dropWrongQuestion].Load()+p.drops[dropUnmatchedID].Load() >= uint64(tc.flood+1)
			}, 30*time.Second, time.Millisecond)
			assert.False(t, evicted.Load(), "no flood, yet the answer was evicted")
		})
	}
}

// TestNoteDropsNeedsAFullBuffer: the kernel's drop count grew. With the
// buffer at least half full at its peak as the reader tells it, a flood
// may have kept a reply out: the ended lookup's answer is evicted. A drop
// with the buffer nearly empty (a datagram with a bad checksum, dropped
// and counted without taking any buffer; one to each port is cheap)
// keeps it; either taints the lookup in flight. The same count read
// again evicts nothing more.
func TestNoteDropsNeedsAFullBuffer(t *testing.T) {
	const rcvbuf = 1 << 19
	for _, tc := range []struct {
		name           string
		mem            sockMem
		peak           uint64
		evicted, taint bool
	}{
		{"no drop", sockMem{queued: rcvbuf, rcvbuf: rcvbuf, drops: 0}, rcvbuf, false, false},
		{"a drop, the buffer empty", sockMem{queued: 0, rcvbuf: rcvbuf, drops: 1}, 100 + datagramOverhead, false, true},
		{"a drop, the buffer half full", sockMem{queued: 0, rcvbuf: rcvbuf, drops: 1}, rcvbuf / 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var evicted atomic.Int32
			ended := &waiter{}
			ended.conflict = conflictFunc(func() { evicted.Add(1) })
			ended.decide(new(dns.Msg), 0)
			live := &waiter{}
			s := &socket{closed: true, pending: []entry{{id: 1, w: ended, tomb: true}, {id: 2, w: live}}}
			s.noteDrops(tc.mem, tc.peak)
			assert.Equal(t, tc.evicted, evicted.Load() == 1, "evicted")
			assert.Equal(t, tc.taint, live.tainted.Load(), "the lookup in flight tainted")
			s.noteDrops(tc.mem, tc.peak)
			assert.LessOrEqual(t, evicted.Load(), int32(1), "evicted twice")
		})
	}
}
