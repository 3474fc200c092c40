package httpapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startSlowBody opens a connection from src that sends a scan request
// announcing an 8,000-byte body and then one byte of it, and holds it.
func startSlowBody(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	c := dialFrom(t, src, addr)
	_, err := io.WriteString(c, "POST /api/scan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8000\r\n\r\n{")
	require.NoError(t, err)
	return c
}

// bodiesBeingRead counts the connections whose request body the handler
// has been reading for longer than d.
func bodiesBeingRead(l *Listener, d time.Duration) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for e := l.conns.Front(); e != nil; e = e.Next() {
		if bs := e.Value.(*limitedConn).bodySince.Load(); bs != 0 && time.Duration(monoNow()-bs) > d {
			n++
		}
	}
	return n
}

// TestListenerShedsSlowBody: at the total cap with every connection busy
// sending a request body at a byte now and then, the slow body read
// longest is closed to make room for a new client.
func TestListenerShedsSlowBody(t *testing.T) {
	t.Parallel()
	l, addr := serveWith(t, New(&FakeService{}, Options{}), ListenerOptions{MaxConns: 2, MaxConnsPerSource: 10},
		func(l *Listener) { l.slowAfter = 100 * time.Millisecond })
	first := startSlowBody(t, "127.0.0.2", addr)
	eventually(t, "the first body to be read", func() bool { return bodiesBeingRead(l, 0) == 1 })
	startSlowBody(t, "127.0.0.3", addr)
	eventually(t, "both bodies to be slow", func() bool { return bodiesBeingRead(l, 200*time.Millisecond) == 2 })
	assert.Equal(t, 200, getHealth(dialFrom(t, "127.0.0.4", addr)), "a new client at a cap of slow bodies")
	st := l.Stats()
	assert.Equal(t, 1, st.SlowBodies, "one slow body shed: %+v", st)
	assert.LessOrEqual(t, st.Open, 2)
	_ = first.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := first.Read(make([]byte, 1))
	assert.Error(t, err, "the slow body read longest was closed")
}

// TestRefusedAtCapAnswered: a connection refused at the total cap, every
// place busy and progressing, gets a JSON 500 with Retry-After instead
// of a reset.
func TestRefusedAtCapAnswered(t *testing.T) {
	t.Parallel()
	l, addr := serveWith(t, New(&FakeService{}, Options{}), ListenerOptions{MaxConns: 2, MaxConnsPerSource: 10},
		func(l *Listener) { l.slowAfter = time.Hour })
	startSlowBody(t, "127.0.0.2", addr)
	startSlowBody(t, "127.0.0.3", addr)
	eventually(t, "both bodies to be read", func() bool { return bodiesBeingRead(l, 0) == 2 })
	c := dialFrom(t, "127.0.0.4", addr)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(c, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "an answer, not a reset")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "the contract's 500 for a dependency temporarily unavailable")
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var body errorBody
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Contains(t, body.Error, "server busy")
	st := l.Stats()
	assert.Equal(t, 1, st.Answered, "%+v", st)
	assert.Equal(t, 2, st.Open)
	eventually(t, "the answered connection to be let go", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.refusing == 0
	})
}

// TestConnReserveCoversBusy: when sources holding many connections hold
// more than the places outside the reserve (each took its first ones
// while it held few), a source holding few still gets in: the newest
// connection of the source holding most is shed, busy or not, until
// they hold no more than the places outside the reserve.
func TestConnReserveCoversBusy(t *testing.T) {
	t.Parallel()
	l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 100})
	admit := func(ip string) bool {
		lc, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
		if ok {
			l.ConnState(lc, http.StateActive) // busy and progressing: neither quiet nor stalled nor slow
		}
		return ok
	}
	for _, ip := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"} {
		for range fewConns {
			require.True(t, admit(ip), "a source's first %d connections may use the whole cap", fewConns)
		}
	}
	require.Equal(t, 16, l.Stats().Open)
	assert.True(t, admit("198.51.100.7"), "a source holding none gets a place of the reserve")
	assert.Equal(t, 1, l.Stats().BusyShed)
	// The shed source holds 3 now, few itself: sources holding many hold
	// 12, under the 14 places outside the reserve.
	assert.False(t, admit("198.51.100.8"), "the cap holds once the many-holders are outside the reserve")
	assert.Equal(t, 1, l.Stats().BusyShed)
	assert.Equal(t, 16, l.Stats().Open)
}

// TestManyHoldersDoNotShedFreshConns: at the total cap, a newcomer whose
// own source holds many connections does not take the place of the
// quiet connection of a source holding many that has been quiet
// longest while that one has waited for its first request for less
// than quietShedAfter (another flood connection just accepted), nor of
// a newer one instead, and is reset rather than answered; once that
// connection has waited quietShedAfter it may, and a connection idle
// between requests it may take at any age. A source holding few still
// takes the place of a connection just accepted.
func TestManyHoldersDoNotShedFreshConns(t *testing.T) {
	t.Parallel()
	l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 100})
	admit := func(ip string) (*limitedConn, bool, bool) {
		lc, victim, ok, answer := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
		if victim != nil {
			l.ConnState(victim, http.StateClosed)
		}
		return lc, ok, answer
	}
	var held []*limitedConn
	for _, ip := range []string{"203.0.113.1", "203.0.113.2"} {
		for range 7 {
			lc, ok, _ := admit(ip)
			require.True(t, ok)
			held = append(held, lc)
		}
	}
	// Fourteen places, the cap less its reserve, held by two sources,
	// every connection accepted less than quietShedAfter ago and waiting
	// for its first request but one, which served a request and is idle
	// again (the newest quiet one).
	l.ConnState(held[13], http.StateActive)
	l.ConnState(held[13], http.StateIdle)
	require.Equal(t, 14, l.Stats().Open)
	_, ok, answer := admit("203.0.113.1")
	assert.False(t, ok, "a source holding many sheds no connection just accepted, nor the idle one behind it")
	assert.False(t, answer, "and is reset, not answered")
	assert.False(t, held[13].gone)
	assert.Zero(t, l.Stats().Shed)
	assert.Equal(t, 1, l.Stats().Refused)

	l.mu.Lock()
	held[0].accepted -= int64(quietShedAfter)
	l.mu.Unlock()
	newcomer, ok, _ := admit("203.0.113.2")
	assert.True(t, ok, "the connection quiet longest waited quietShedAfter for its first request: it may be shed")
	assert.Equal(t, 1, l.Stats().Shed)
	assert.True(t, held[0].gone)
	_, ok, _ = admit("203.0.113.2")
	assert.False(t, ok, "the next one quiet longest is still too fresh")

	// Every connection busy but one, idle between requests for a moment:
	// it may be shed at any age.
	for _, lc := range append(held[1:], newcomer) {
		l.ConnState(lc, http.StateActive)
	}
	l.ConnState(held[9], http.StateIdle)
	newcomer, ok, _ = admit("203.0.113.1")
	assert.True(t, ok, "a connection idle between requests may be shed at any age")
	assert.True(t, held[9].gone)
	assert.Equal(t, 2, l.Stats().Shed)

	_, ok, _ = admit("198.51.100.7")
	assert.True(t, ok, "a source holding none takes a place of the reserve")
	_, ok, _ = admit("198.51.100.8")
	assert.True(t, ok, "and another")
	_, ok, _ = admit("198.51.100.9")
	assert.True(t, ok, "at the total cap, a source holding none sheds a connection just accepted of a source holding many")
	assert.True(t, newcomer.gone)
	assert.Equal(t, 3, l.Stats().Shed)
	assert.Equal(t, 16, l.Stats().Open)
}
