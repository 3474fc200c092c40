//go:build linux

package resolver

import (
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connClosed reports whether s's descriptor is closed.
func connClosed(s *socket) bool {
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return true
	}
	return raw.Control(func(uintptr) {}) != nil
}

// goroutineStacks returns the stack of every goroutine, one each.
func goroutineStacks() []string {
	buf := make([]byte, 8<<20)
	return strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
}

// stackHas reports whether some goroutine's stack holds fn.
func stackHas(fn string) bool {
	return slices.ContainsFunc(goroutineStacks(), func(g string) bool { return strings.Contains(g, fn) })
}

// TestCloseWhileReaderHandsOver: the reader, woken to hand s over,
// waits in watcher.add for s.mu while the last tombstone goes and s
// closes. add finds s closed; the reader must close the descriptor.
func TestCloseWhileReaderHandsOver(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	p := &pool{readers: true}
	u := p.upstream(pc.LocalAddr().String(), nil, DefaultUDPSize)
	s, err := u.dial(1)
	require.NoError(t, err)
	e := queryEntry(t, u, "q.example.test.")
	id, ok := s.register(&e) // limit 1: retired
	require.True(t, ok)

	s.mu.Lock()
	s.pending[s.find(id)].tomb = true
	s.live--
	s.handOverLocked() // wakes the reader, which goes to watch.add and waits for s.mu
	require.Eventually(t, func() bool { return stackHas("(*watcher).add") }, 30*time.Second, 2*time.Millisecond)
	s.pending = s.pending[:0]
	s.closeLocked()
	s.mu.Unlock()

	require.Eventually(t, func() bool { return connClosed(s) }, 30*time.Second, 5*time.Millisecond, "descriptor closed")
	require.Zero(t, p.watch.count())
}

// TestCloseWhileReaderWaits: closeLocked wakes a reader waiting
// for a datagram; it closes the descriptor.
func TestCloseWhileReaderWaits(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	p := &pool{readers: true}
	u := p.upstream(pc.LocalAddr().String(), nil, DefaultUDPSize)
	s, err := u.dial(8)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return stackHas("awaitDatagram") }, 30*time.Second, 2*time.Millisecond)
	s.closeIdle()
	require.Eventually(t, func() bool { return connClosed(s) }, 30*time.Second, 5*time.Millisecond, "descriptor closed")
}

// TestGiveBackStartsReader: a watched socket that cannot be armed again
// (rearm's epoll_ctl failed) is given a reader of its own: the watcher
// forgets it, and a reply to its query in flight is still delivered.
func TestGiveBackStartsReader(t *testing.T) {
	pc, p, u, s := socketTo(t, false)
	require.Equal(t, 1, p.watch.count(), "watched from its start")
	e := queryEntry(t, u, "q.example.test.")
	id, ok := s.register(&e)
	require.True(t, ok)

	p.watch.giveBack(s)
	assert.Zero(t, p.watch.count(), "the watcher forgot it")
	require.Eventually(t, func() bool { return stackHas("awaitDatagram") }, 30*time.Second, 2*time.Millisecond, "a reader of its own")
	answerOn(t, pc, s, e, id)
	s.release(id)
}
