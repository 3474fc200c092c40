package httpapi

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveWith serves h on a LimitListener with o over 127.0.0.1, as
// NewServer does.
func serveWith(t *testing.T, h http.Handler, o ListenerOptions, tune func(*Listener)) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := LimitListener(ln, o)
	if tune != nil {
		tune(l)
	}
	srv := NewServer(h, l, log.New(io.Discard, "", 0))
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l, ln.Addr().String()
}

// bigOrHealth answers /big with 64 MiB (more than any socket buffers
// hold) and anything else with a short 200.
var bigOrHealth = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/big" {
		_, _ = io.WriteString(w, "ok")
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
	chunk := make([]byte, 64<<10)
	for range 1024 {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
})

// TestListenerShedsStalledWriter: at the total cap with every connection
// busy, a connection blocked writing to a client that does not read is
// closed to make room for a new client.
func TestListenerShedsStalledWriter(t *testing.T) {
	t.Parallel()
	l, addr := serveWith(t, bigOrHealth, ListenerOptions{MaxConns: 2, MaxConnsPerSource: 10},
		func(l *Listener) { l.stallAfter = 100 * time.Millisecond })
	for _, src := range []string{"127.0.0.2", "127.0.0.3"} {
		c := dialFrom(t, src, addr)
		_, err := io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
	}
	eventually(t, "both writers to block", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		n := 0
		for e := l.conns.Front(); e != nil; e = e.Next() {
			if ws := e.Value.(*limitedConn).writingSince.Load(); ws != 0 && time.Duration(monoNow()-ws) > 200*time.Millisecond {
				n++
			}
		}
		return n == 2
	})
	assert.Equal(t, 200, getHealth(dialFrom(t, "127.0.0.4", addr)), "a new client at the cap of stalled writers")
	st := l.Stats()
	assert.Equal(t, 1, st.Stalled, "one stalled writer shed")
	assert.LessOrEqual(t, st.Open, 2)
}

// TestConnReserveForFewHolders: a source holding many connections cannot
// take the last eighth of the cap; sources holding few still can.
func TestConnReserveForFewHolders(t *testing.T) {
	t.Parallel()
	l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 100})
	admit := func(ip string) bool {
		lc, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
		if ok {
			l.ConnState(lc, http.StateActive) // busy: not sheddable
		}
		return ok
	}
	n := 0
	for admit("203.0.113.66") {
		n++
	}
	assert.Equal(t, 16-connReserveOf(16), n, "a many-connection source stops short of the reserve")
	assert.True(t, admit("198.51.100.7"), "a source with no connection uses the reserve")
	assert.True(t, admit("198.51.100.8"))
	assert.False(t, admit("198.51.100.9"), "the total cap still holds")
}

// TestPipelinedNonReaderClosed: a client that pipelines page requests
// and never reads has its connection closed within a few seconds (the
// short write deadline of pages, and no further request is answered while
// a response is unsent), not after the diagnostics' 27 s write timeout.
func TestPipelinedNonReaderClosed(t *testing.T) {
	t.Parallel()
	l, addr := serveWith(t, New(&FakeService{}, Options{}), ListenerOptions{}, nil)
	c := dialFrom(t, "127.0.0.5", addr)
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4096))
	go func() {
		req := strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 2000)
		_, _ = io.WriteString(c, req)
	}()
	eventually(t, "the connection to open", func() bool { return l.Stats().Open == 1 })
	assert.Eventually(t, func() bool { return l.Stats().Open == 0 }, 15*time.Second, 20*time.Millisecond,
		"the non-reading connection is still open")
}

// TestPipelinedReaderServed: a client that pipelines three page
// requests and reads its answers a little later (a receive buffer
// smaller than the answers keeps part of each unsent meanwhile) gets all
// three: the wait for the previous answer to leave ends when it leaves.
func TestPipelinedReaderServed(t *testing.T) {
	t.Parallel()
	_, addr := serveWith(t, New(&FakeService{}, Options{}), ListenerOptions{}, nil)
	c := dialFrom(t, "127.0.0.5", addr)
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(32<<10))
	_, err := io.WriteString(c, strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 3))
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	br := bufio.NewReader(c)
	for i := range 3 {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Minute)))
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err, "answer %d", i+1)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
}
