//go:build linux

package resolver

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watcherReaders returns how many goroutines run w's serve, and how many
// of them are not parked in its wait for the next socket (busy with one,
// or on their way to the wait or out).
func watcherReaders(w *watcher) (all, busy int) {
	frame := fmt.Sprintf("(*watcher).serve(%p,", w)
	for _, g := range goroutineStacks() {
		if !strings.Contains(g, frame) {
			continue
		}
		all++
		header, _, _ := strings.Cut(g, "\n")
		if !strings.Contains(header, "[select") || strings.Contains(g, "(*socket).drain(") {
			busy++
		}
	}
	return all, busy
}

// TestBurstLeavesFewReadersWaiting: a burst of replies on many sockets at
// once, each held in its handling until all have come (as a reply's
// handling runs the lookup's continuation, deep), starts a reader for
// each socket. Once they have all handled theirs, at most idleReaders
// wait for the next ready socket; the others end instead of waiting
// serveIdle with the stack the handling grew. A reply after the burst is
// still delivered.
func TestBurstLeavesFewReadersWaiting(t *testing.T) {
	const sockets = 6 * idleReaders
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	p := &pool{}
	u := p.upstream(pc.LocalAddr().String(), nil, DefaultUDPSize)

	held := make(chan struct{}) // closed when every reply is in its handling
	inHandling := make(chan struct{}, sockets)
	for i := range sockets {
		s, e, id := registerOn(t, u, "q.example.test.")
		e.w.mu.Lock()
		e.w.kick = func() { inHandling <- struct{}{}; <-held }
		e.w.mu.Unlock()
		_, err = pc.WriteTo(replyTo(t, e, id, e.name), s.conn.LocalAddr())
		require.NoError(t, err, "reply %d", i)
	}
	for range sockets {
		select {
		case <-inHandling:
		case <-time.After(30 * time.Second):
			t.Fatal("a reply was not handled")
		}
	}
	all, _ := watcherReaders(&p.watch)
	require.GreaterOrEqual(t, all, sockets, "a reader for each socket of the burst")
	close(held)

	// No step here depends on time: the readers are counted once none is
	// busy, however long that takes; a reader waiting longer than
	// serveIdle ends, which only lowers the count.
	require.Eventually(t, func() bool { _, busy := watcherReaders(&p.watch); return busy == 0 }, 30*time.Second, time.Millisecond)
	all, _ = watcherReaders(&p.watch)
	assert.LessOrEqual(t, all, idleReaders, "readers left waiting after the burst")
	assert.LessOrEqual(t, int(p.watch.waiting.Load()), idleReaders)

	// A reply after the burst is still handled (by a reader waiting, or
	// by a new one).
	s, e, id := registerOn(t, u, "r.example.test.")
	answerOn(t, pc, s, e, id)
}

// registerOn opens a new socket of u and registers a query for name on
// it; when the test ends the query is released and the socket retired,
// which closes it.
func registerOn(t *testing.T, u *upstream, name string) (*socket, entry, uint16) {
	t.Helper()
	s, err := u.dial(socketBatch)
	require.NoError(t, err)
	e := queryEntry(t, u, name)
	id, ok := s.register(&e)
	require.True(t, ok)
	t.Cleanup(func() {
		s.release(id)
		s.retire()
	})
	return s, e, id
}
