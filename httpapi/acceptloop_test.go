package httpapi

import (
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queuedListener hands out the connections sent on conns, as the
// kernel's accept queue would.
type queuedListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newQueuedListener() *queuedListener {
	return &queuedListener{conns: make(chan net.Conn, 16), done: make(chan struct{})}
}

func (q *queuedListener) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

func (q *queuedListener) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *queuedListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }

// stuckConn is a connection from src whose Close does not return until
// release is closed, like a close that the kernel makes slow; closed is
// closed when Close was called.
type stuckConn struct {
	net.Conn // nil: only RemoteAddr and Close are used
	src      string
	release  chan struct{}
	closed   chan struct{}
	once     sync.Once
}

func newStuckConn(src string, release chan struct{}) *stuckConn {
	return &stuckConn{src: src, release: release, closed: make(chan struct{})}
}

func (c *stuckConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP(c.src), Port: 40000}
}

func (c *stuckConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	<-c.release
	return nil
}

// TestAcceptLoopDoesNotWaitForCloses: the accept loop hands out the next
// connection while the connections it shed (to make room at the total
// cap) and refused (over the per-source cap) are still being closed, so
// that a flood of connections to shed or refuse is drained from the
// kernel's accept queue as fast as the loop can take them, and a
// visitor's connection behind them waits as little as possible. Each
// shed or refused connection is still closed.
func TestAcceptLoopDoesNotWaitForCloses(t *testing.T) {
	t.Parallel()
	q := newQueuedListener()
	l := LimitListener(q, ListenerOptions{MaxConns: 1, MaxConnsPerSource: 1})
	t.Cleanup(func() { _ = l.Close() })
	release := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	first := newStuckConn("192.0.2.1", release)
	over := newStuckConn("192.0.2.1", release)    // over its source's cap: reset
	visitor := newStuckConn("192.0.2.2", release) // at the total cap: sheds first, quiet
	q.conns <- first
	got, err := l.Accept()
	require.NoError(t, err)
	require.Equal(t, first, got.(*limitedConn).Conn)

	q.conns <- over
	q.conns <- visitor
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	select {
	case c := <-accepted:
		assert.Equal(t, visitor, c.(*limitedConn).Conn, "the visitor's connection, handed out while the others' closes are stuck")
	case <-time.After(10 * time.Second):
		t.Fatal("the accept loop waited for the close of a refused or shed connection")
	}
	close(release)
	for _, c := range []*stuckConn{over, first} {
		select {
		case <-c.closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("the connection from %s was never closed", c.src)
		}
	}
	st := l.Stats()
	assert.Equal(t, 1, st.Open, "%+v", st)
	assert.Equal(t, 1, st.Refused, "%+v", st)
	assert.Equal(t, 1, st.Shed, "%+v", st)
}

// TestListenerCountsBodiesAndWriters: the counts that let the accept loop
// skip looking for slow bodies and stalled writers follow the
// connections' state, and a connection closed while reading a body is no
// longer counted.
func TestListenerCountsBodiesAndWriters(t *testing.T) {
	t.Parallel()
	l := LimitListener(newQueuedListener(), ListenerOptions{})
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	lc, _, ok, _ := l.admit(a)
	require.True(t, ok)
	lc.startBody()
	lc.startBody() // a second start is not a second body
	assert.Equal(t, int64(1), l.bodies.Load())
	lc.endBody()
	lc.endBody()
	assert.Equal(t, int64(0), l.bodies.Load())
	lc.startBody()
	go func() { _, _ = b.Read(make([]byte, 1)) }()
	_, err := lc.Write([]byte{'x'})
	require.NoError(t, err)
	assert.Equal(t, int64(0), l.writers.Load(), "no write in progress")
	require.NoError(t, lc.Close())
	assert.Equal(t, int64(0), l.bodies.Load(), "closed while reading a body")
	assert.Zero(t, l.Stats().Open)
}

// TestManyHolderShedsNoBusyConn: a newcomer from a source holding many
// connections takes the place of no slow body and no stalled writer, not
// even one of its own: a flood of them reconnecting is refused (a reset,
// or the busy answer) rather than shedding its own connections as fast as
// it reconnects. A newcomer holding few (a visitor) still takes their
// places.
func TestManyHolderShedsNoBusyConn(t *testing.T) {
	t.Parallel()
	long := int64(time.Minute)
	for _, kind := range []string{"slow body", "stalled writer"} {
		l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 100})
		admit := func(ip string, busy bool) bool {
			lc, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
			if !ok {
				return false
			}
			l.ConnState(lc, http.StateActive)
			switch {
			case !busy: // progressing
			case kind == "slow body":
				lc.startBody()
				lc.bodySince.Store(monoNow() - long)
			default: // as in a Write that does not return
				lc.writingSince.Store(monoNow() - long)
				l.writers.Add(1)
			}
			return true
		}
		for range 14 { // the places outside the reserve (16 - 16/8)
			require.True(t, admit("203.0.113.1", true), kind)
		}
		assert.False(t, admit("203.0.113.1", true), "a source holding many takes the place of its own %s", kind)
		st := l.Stats()
		assert.Zero(t, st.SlowBodies+st.Stalled, "%s: %+v", kind, st)
		require.True(t, admit("198.51.100.1", false), kind) // the reserve
		require.True(t, admit("198.51.100.2", false), kind)
		assert.True(t, admit("198.51.100.3", false), "a visitor at the cap takes the place of a %s", kind)
		st = l.Stats()
		assert.Equal(t, 1, st.SlowBodies+st.Stalled, "%s: %+v", kind, st)
		assert.Equal(t, 16, st.Open, kind)
	}
}
