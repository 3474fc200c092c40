package httpapi

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedConn is a refused connection whose Close is counted when it
// returns, blocking until release is closed when release is not nil (it
// then closes entered first).
type countedConn struct {
	net.Conn
	release  chan struct{}
	entered  chan struct{}
	returned *atomic.Int64
}

func (c *countedConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 9), Port: 1}
}

func (c *countedConn) Close() error {
	if c.release != nil {
		close(c.entered)
		<-c.release
	}
	c.returned.Add(1)
	return nil
}

// TestAttackCloseQueueBound: a flood of connections refused over the
// per-source cap, with the closer slow, leaves a bounded number of them
// unclosed: the closer's batch in progress counts against maxClosing
// with the queue, so at most maxClosing wait (descriptors held: MaxConns
// + maxRefusing + maxClosing = 2,368 by default). The loop never stalls:
// past the bound it closes them itself. It waits on the listener's own
// accounting (closing, inBatch) and on the closer's entering the Close it
// sticks on, never on a quiet period.
func TestAttackCloseQueueBound(t *testing.T) {
	t.Parallel()
	q := newQueuedListener()
	l := LimitListener(q, ListenerOptions{MaxConns: 100, MaxConnsPerSource: 1})
	t.Cleanup(func() { _ = l.Close() })
	var returned atomic.Int64
	rel1, rel2 := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() {
		for _, r := range []chan struct{}{rel1, rel2} {
			select {
			case <-r:
			default:
				close(r)
			}
		}
	})
	q.conns <- &countedConn{returned: &returned} // admitted: the source's one place
	_, err := l.Accept()
	require.NoError(t, err)
	go func() { _, _ = l.Accept() }() // every other connection is refused: Accept never returns
	fed := 0
	feed := func(c *countedConn) { q.conns <- c; fed++ }
	// settle waits until the accept loop has dealt with every connection
	// fed: each is closed (returned) or waits in the closer's queue or
	// batch. It is called while the closer sticks in a Close, so that no
	// connection is counted both as returned and as in its batch.
	settle := func() {
		require.Eventually(t, func() bool {
			if len(q.conns) != 0 {
				return false
			}
			closed := returned.Load()
			l.cmu.Lock()
			pending := len(l.closing) + l.inBatch
			l.cmu.Unlock()
			return closed+int64(pending) == int64(fed)
		}, 20*time.Second, time.Millisecond)
	}
	stuck1, stuck2 := make(chan struct{}), make(chan struct{})
	awaitStuck := func(entered chan struct{}) {
		select {
		case <-entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the closer never took the connection it sticks on")
		}
	}
	feed(&countedConn{returned: &returned, release: rel1, entered: stuck1}) // the closer sticks on it
	awaitStuck(stuck1)
	feed(&countedConn{returned: &returned, release: rel2, entered: stuck2}) // first of the next batch: sticks again
	for range 600 {
		feed(&countedConn{returned: &returned})
	}
	settle()
	close(rel1) // the closer takes the whole queue and sticks on its first
	awaitStuck(stuck2)
	for range 600 {
		feed(&countedConn{returned: &returned})
	}
	settle()
	unclosed := int64(fed) - returned.Load()
	t.Logf("refused connections not yet closed: %d (maxClosing %d)", unclosed, maxClosing)
	assert.LessOrEqual(t, unclosed, int64(maxClosing), "unclosed refused connections past the queue's bound")
	close(rel2)
	require.Eventually(t, func() bool { return returned.Load() == int64(fed) }, 10*time.Second, 10*time.Millisecond,
		"every refused connection closed in the end")
	assert.Eventually(t, func() bool {
		l.cmu.Lock()
		defer l.cmu.Unlock()
		return !l.closer && len(l.closing) == 0
	}, 5*time.Second, 10*time.Millisecond, "the closer goroutine exits when nothing is left")
}
