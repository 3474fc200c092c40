package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackShedConnBodyCountDrift: a connection shed at the total cap
// is forgotten at once but closed later, by the closer goroutine. Until
// then its server goroutine goes on: a request it had on the way (its
// header was in the socket, the connection still "quiet") reaches pace,
// which calls startBody on the forgotten connection. When the handler
// does not read that body (404, 405, 415, a 429 before the body) the
// connection's return to idle and its close are ignored for a forgotten
// connection (ConnState returns early on gone), so l.bodies never comes
// back to 0 and the accept loop's skip of the slow-body walk is lost for
// the life of the process. Each shed connection can leave one more.
func TestAttackShedConnBodyCountDrift(t *testing.T) {
	t.Parallel()
	l := LimitListener(nil, ListenerOptions{MaxConns: 1, MaxConnsPerSource: 4})
	victim, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP("203.0.113.1"), Port: 1}})
	require.True(t, ok)
	// A visitor at the total cap sheds the quiet victim: forgotten now,
	// closed by closeSoon later.
	_, shed, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP("198.51.100.1"), Port: 1}})
	require.True(t, ok)
	require.Equal(t, victim, shed)
	// The victim's request, read before the closer reached it: pace
	// starts its body; the handler answers without reading it.
	l.ConnState(victim, http.StateActive)
	victim.startBody()
	l.ConnState(victim, http.StateIdle)
	l.ConnState(victim, http.StateClosed)
	_ = victim.Close()
	assert.Equal(t, int64(0), l.bodies.Load(), "a shed connection left counted as reading a body forever")
}

// TestAttackCatalogueBodiesSharedAcrossRequests: the fixed error bodies
// are encoded once and shared; many requests written at once keep their
// own headers (Retry-After per request) and the shared bytes are never
// changed by a write.
func TestAttackCatalogueBodiesSharedAcrossRequests(t *testing.T) {
	t.Parallel()
	want := append([]byte(nil), catalogueBodies[errRateLimited.msg]...)
	require.NotEmpty(t, want)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPost, "/api/scan", nil)
			w.Header().Set("Retry-After", fmt.Sprint(i+1))
			writeError(w, r, errRateLimited)
			body := w.Body.Bytes()
			body = append(body[:len(body):len(body)], "mutated"...) // a writer that appends
			copy(body, "XXXX")                                      // and one that scribbles on what it was given
			assert.Equal(t, fmt.Sprint(i+1), w.Header().Get("Retry-After"))
			assert.Equal(t, http.StatusTooManyRequests, w.Code)
		}()
	}
	wg.Wait()
	assert.Equal(t, want, catalogueBodies[errRateLimited.msg])
	w := httptest.NewRecorder()
	writeError(w, httptest.NewRequest(http.MethodGet, "/", nil), errRateLimited)
	assert.Equal(t, want, w.Body.Bytes())
	assert.Empty(t, w.Header().Get("Retry-After"), "no Retry-After leaks from one request to another")
}

// TestAttackChurnCountsReturnToZero: many sources (127.0.0.1-8) open
// connections on loopback at a small cap, some quiet, some sending a
// slow body, some half a header, some pipelining without reading, and
// drop them at random times while the listener sheds and resets. The
// open count never exceeds the cap, and once every client is gone the
// listener's counts (open, sources, writers) are back to zero: no drift
// leaves a place taken for ever or lets a source past its cap.
func TestAttackChurnCountsReturnToZero(t *testing.T) {
	t.Parallel()
	raw, err := Listen(t.Context(), "127.0.0.1:0")
	require.NoError(t, err)
	const maxConns, perSource = 24, 5
	l := LimitListener(raw, ListenerOptions{MaxConns: maxConns, MaxConnsPerSource: perSource})
	l.slowAfter = 50 * time.Millisecond
	l.stallAfter = 50 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("/read", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write(bytes.Repeat([]byte("x"), 64<<10))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound) // body left unread
	})
	srv := NewServer(pace(mux.ServeHTTP), l, nil)
	srv.ReadTimeout, srv.ReadHeaderTimeout, srv.WriteTimeout, srv.IdleTimeout = time.Second, time.Second, time.Second, time.Second
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := raw.Addr().(*net.TCPAddr)

	var over atomic.Int64
	stop := make(chan struct{})
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if st := l.Stats(); st.Open > maxConns {
				over.Store(int64(st.Open))
			}
			time.Sleep(time.Millisecond)
		}
	}()

	var wg sync.WaitGroup
	deadline := time.Now().Add(3 * time.Second)
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+w%8))}, Timeout: time.Second}
			for i := 0; time.Now().Before(deadline); i++ {
				c, err := d.Dial("tcp", addr.String())
				if err != nil {
					continue
				}
				switch (w + i) % 5 {
				case 0: // quiet
				case 1: // slow body
					_, _ = io.WriteString(c, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab")
				case 2: // half a header
					_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHo")
				case 3: // pipelined, never read
					_, _ = io.WriteString(c, strings.Repeat("POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na", 8))
				case 4: // a body the handler leaves unread
					_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
				}
				time.Sleep(time.Duration(i%7) * 15 * time.Millisecond)
				if i%3 == 0 {
					_ = c.(*net.TCPConn).SetLinger(0)
				}
				_ = c.Close()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-watch
	assert.Zero(t, over.Load(), "open connections past the total cap")
	require.Eventually(t, func() bool {
		st := l.Stats()
		return st.Open == 0 && st.Sources == 0 && l.writers.Load() == 0
	}, 30*time.Second, 20*time.Millisecond, "counts after every client left: %+v writers=%d", l.Stats(), l.writers.Load())
	l.mu.Lock()
	assert.Empty(t, l.bySrc)
	assert.Zero(t, l.conns.Len())
	assert.Zero(t, l.quiet.Len())
	l.mu.Unlock()
	// The slow-body walk's gate: no connection is left, so none reads a
	// body (see TestAttackShedConnBodyCountDrift for the path).
	assert.Zero(t, l.bodies.Load(), "connections counted as reading a body with none open: %+v", l.Stats())
}

// TestAttackSilentPeersBoundedWithoutKeepAlive: with TCP keep-alive
// probes off (Listen), a peer that goes silent in any state of its
// connection (never sends a request, stops in the middle of a header or
// a body, pipelines and never reads, or stays idle after an answer) is
// indistinguishable from a dead one; each such state must end on a
// server timeout, so that no place is held for ever. The clients here
// keep their sockets open and do nothing more.
func TestAttackSilentPeersBoundedWithoutKeepAlive(t *testing.T) {
	t.Parallel()
	raw, err := Listen(t.Context(), "127.0.0.1:0")
	require.NoError(t, err)
	accepted := &acceptCounter{Listener: raw}
	l := LimitListener(accepted, ListenerOptions{MaxConns: 64, MaxConnsPerSource: 64})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write(bytes.Repeat([]byte("x"), 256<<10))
	})
	srv := NewServer(pace(mux.ServeHTTP), l, nil)
	srv.ReadTimeout, srv.ReadHeaderTimeout, srv.WriteTimeout, srv.IdleTimeout = time.Second, 500*time.Millisecond, time.Second, time.Second
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	states := map[string]string{
		"new, nothing sent":    "",
		"half a header":        "GET / HTTP/1.1\r\nHo",
		"half a body":          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab",
		"pipelined non-reader": strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 16),
	}
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			_ = c.Close()
		}
	})
	for name, send := range states {
		c, err := net.Dial("tcp", raw.Addr().String())
		require.NoError(t, err, name)
		_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		held = append(held, c)
		if send != "" {
			_, err = io.WriteString(c, send)
			require.NoError(t, err, name)
		}
	}
	// Idle after an answer read in full.
	c, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(t, err)
	held = append(held, c)
	_, err = io.WriteString(c, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a hang
	_, err = c.Read(make([]byte, 4096))
	require.NoError(t, err)
	// Every peer took a place: counted as accepted, not as open, which
	// the first of them may no longer be (its 500 ms header timeout) by
	// the time a loaded machine has accepted the last.
	require.Eventually(t, func() bool { return accepted.n.Load() == int64(len(states)+1) }, 30*time.Second, 10*time.Millisecond)
	assert.Zero(t, l.Stats().Refused, "no peer refused: each held a place")
	require.Eventually(t, func() bool { return l.Stats().Open == 0 }, 30*time.Second, 50*time.Millisecond,
		"silent peers still hold places: %+v", l.Stats())
	assert.Zero(t, l.writers.Load())
}

// acceptCounter counts the connections its Listener accepted.
type acceptCounter struct {
	net.Listener
	n atomic.Int64
}

func (a *acceptCounter) Accept() (net.Conn, error) {
	c, err := a.Listener.Accept()
	if err == nil {
		a.n.Add(1)
	}
	return c, err
}
