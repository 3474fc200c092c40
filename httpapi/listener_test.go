package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startLimited serves New(FakeService) on a LimitListener over 127.0.0.1
// with the server settings of `mailauth serve` (idle and header timeouts
// shortened so idle connections are freed quickly).
func startLimited(t *testing.T, o ListenerOptions) (*Listener, string) {
	t.Helper()
	return startLimitedIdle(t, o, 300*time.Millisecond)
}

// startLimitedIdle is startLimited with the server's header and idle
// timeouts at idle.
func startLimitedIdle(t *testing.T, o ListenerOptions, idle time.Duration) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := LimitListener(ln, o)
	srv := &http.Server{
		Handler:           New(&FakeService{}, Options{}),
		ReadHeaderTimeout: idle,
		IdleTimeout:       idle,
		MaxHeaderBytes:    16 << 10,
		ConnState:         l.ConnState,
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l, ln.Addr().String()
}

// dialFrom connects to addr from the loopback address src (all of
// 127.0.0.0/8 is local on Linux).
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		if os.Getenv("CI") == "true" {
			require.NoError(t, err, "cannot dial from %s: CI runs on Linux, where all of 127.0.0.0/8 is loopback", src)
		}
		t.Skipf("cannot dial from %s (needs the whole 127.0.0.0/8 on loopback, as on Linux): %v", src, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// refused reports whether a connection from src to addr is closed
// unanswered: its health request gets no answer, or the listener's reset
// arrives before the dial completes (a refused connection is reset, and
// on a busy machine the reset can beat the handshake's last step).
func refused(t *testing.T, src, addr string) bool {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	require.NoError(t, err, "dial from %s", src)
	defer c.Close()
	return getHealth(c) == 0
}

// getHealth sends GET /api/health on c (keep-alive) and returns the status,
// or 0 when the connection was closed without an answer.
func getHealth(c net.Conn) int {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestListenerPerSourceCap: one source holds at most MaxConnsPerSource
// connections; the next is closed unanswered, another source is still
// served, and a closed connection frees its place.
func TestListenerPerSourceCap(t *testing.T) {
	t.Parallel()
	l, addr := startLimited(t, ListenerOptions{MaxConnsPerSource: 4})
	var held []net.Conn
	for range 4 {
		c := dialFrom(t, "127.0.0.1", addr)
		require.Equal(t, 200, getHealth(c), "connection within the cap")
		held = append(held, c)
	}
	assert.True(t, refused(t, "127.0.0.1", addr), "5th connection of one source answered, want closed")
	assert.Equal(t, 200, getHealth(dialFrom(t, "127.0.0.2", addr)), "another source")
	assert.NotZero(t, l.Stats().Refused, "no refusal counted")
	held[0].Close()
	eventually(t, "the closed connection to be released", func() bool { return l.Stats().Open <= 4 })
	assert.Equal(t, 200, getHealth(dialFrom(t, "127.0.0.1", addr)), "after one closed")
}

// TestListenerTotalCap: at MaxConns open connections a new one takes the
// place of the connection quiet longest, so idle holders cannot lock new
// clients out; the total never exceeds MaxConns. The server's idle
// timeout is a minute, so that only the shedding closes a held
// connection however slow the machine.
func TestListenerTotalCap(t *testing.T) {
	t.Parallel()
	l, addr := startLimitedIdle(t, ListenerOptions{MaxConns: 3, MaxConnsPerSource: 100}, time.Minute)
	var held []net.Conn
	for i, src := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		c := dialFrom(t, src, addr)
		require.Equal(t, 200, getHealth(c), "%s", src)
		held = append(held, c)
		eventually(t, "the connection to turn idle", func() bool { return l.Stats().Quiet == i+1 })
	}
	require.Equal(t, 200, getHealth(dialFrom(t, "127.0.0.4", addr)), "new client at the total cap, want served")
	st := l.Stats()
	assert.LessOrEqual(t, st.Open, 3, "stats %+v, want at most 3 open and 1 shed", st)
	assert.Equal(t, 1, st.Shed, "stats %+v, want at most 3 open and 1 shed", st)
	// The shed connection is closed by the listener's closer goroutine,
	// soon after the accept: wait for its end (a read with nothing to read
	// returns only when the server closes it) rather than race it.
	_ = held[0].SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := held[0].Read(make([]byte, 1))
	require.Error(t, err, "the longest-idle connection: a byte from the server")
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the longest-idle connection still open, want closed")
	assert.Equal(t, 200, getHealth(held[1]), "a connection quiet for less time, want kept")
}

// TestListenerIdleFreed: idle keep-alive connections and connections that
// never send a request are closed by the server's timeouts, and the
// listener's count returns to zero.
func TestListenerIdleFreed(t *testing.T) {
	t.Parallel()
	l, addr := startLimited(t, ListenerOptions{})
	for i := range 6 {
		c := dialFrom(t, "127.0.0.1", addr)
		if i%2 == 0 {
			require.Equal(t, 200, getHealth(c), "health failed")
		}
	}
	eventually(t, "6 connections to be counted", func() bool { return l.Stats().Open == 6 || l.Stats().Open == 0 })
	eventually(t, "idle connections to be freed", func() bool { return l.Stats().Open == 0 && l.Stats().Sources == 0 })
}

// TestServerErrorsAreJSON: the responses net/http writes itself, without a
// handler, reach the client as the service's JSON error shape.
func TestServerErrorsAreJSON(t *testing.T) {
	t.Parallel()
	_, addr := startLimited(t, ListenerOptions{})
	cases := []struct {
		name, raw string
		status    int
	}{
		{"header too large", "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431},
		{"missing host", "GET /api/health HTTP/1.1\r\n\r\n", 400},
		{"malformed request line", "NONSENSE\r\n\r\n", 400},
		{"malformed header", "GET /api/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400},
		{"unknown transfer coding", "POST /api/scan HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"unsupported version", "GET /api/health HTTP/3.0\r\nHost: x\r\n\r\n", 505},
		{"handler error untouched", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialFrom(t, "127.0.0.1", addr)
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			_, err := io.WriteString(c, tc.raw)
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, tc.status, resp.StatusCode, "%q %q, want %d JSON", resp.Header.Get("Content-Type"), body, tc.status)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%d %q, want %d JSON", resp.StatusCode, body, tc.status)
			var e map[string]any
			assert.NoError(t, json.Unmarshal(body, &e), "body %q is not {\"error\": ...}", body)
			assert.Len(t, e, 1, "body %q is not {\"error\": ...}", body)
			assert.NotNil(t, e["error"], "body %q is not {\"error\": ...}", body)
		})
	}
}

// TestServerErrorStatus: only net/http's exact handler-less error shape is
// recognised.
func TestServerErrorStatus(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]int{
		"HTTP/1.1 431 Request Header Fields Too Large" + serverErrorHeaders + "431 Request Header Fields Too Large": 431,
		"HTTP/1.1 400 Bad Request: missing required Host header" + serverErrorHeaders + "400 Bad Request: missing":  400,
		"HTTP/1.1 400 Bad Request\r\nCache-Control: no-store\r\nContent-Type: application/json\r\n\r\n{}":           0,
		"HTTP/1.1 200 OK" + serverErrorHeaders + "fine":                                                             0,
		"HTTP/1.1 400 Bad Request" + serverErrorHeaders + "two\r\nlines":                                            0,
	} {
		got, _ := serverErrorStatus([]byte(raw))
		assert.Equal(t, want, got, "%q", raw[:30])
	}
}

// FuzzServerErrorStatus: any write is either passed through or
// recognised as one of net/http's error responses with a 4xx/5xx status;
// never a panic.
func FuzzServerErrorStatus(f *testing.F) {
	f.Add([]byte("HTTP/1.1 431 Request Header Fields Too Large" + serverErrorHeaders + "431 Request Header Fields Too Large"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 4"))
	f.Fuzz(func(t *testing.T, p []byte) {
		status, ok := serverErrorStatus(p)
		if ok {
			require.GreaterOrEqual(t, status, 400, "recognised %q as status %d", p, status)
			require.LessOrEqual(t, status, 599, "recognised %q as status %d", p, status)
			require.True(t, strings.HasPrefix(string(p), "HTTP/1.1 "), "recognised %q as status %d", p, status)
			require.NotEmpty(t, jsonServerError(status), "empty replacement")
		}
	})
}

// fromConn is a connection whose peer is remote; admit reads nothing
// else of it.
type fromConn struct {
	net.Conn
	remote net.Addr
}

func (c fromConn) RemoteAddr() net.Addr { return c.remote }
func (c fromConn) Close() error         { return nil }

// TestListenerNetworkCaps: the /64s of one IPv6 /56 and /48 share
// connsPer56Factor and connsPer48Factor times the per-source cap, so an
// end site's prefix cannot fill the listener; other networks are still
// admitted, and a closed connection frees its place in every group.
func TestListenerNetworkCaps(t *testing.T) {
	t.Parallel()
	const per = 2
	l := LimitListener(nil, ListenerOptions{MaxConnsPerSource: per, MaxConns: 1 << 20})
	admit := func(ip string) *limitedConn {
		lc, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
		if !ok {
			return nil
		}
		return lc
	}
	var first *limitedConn
	// Fill one /56 (2001:db8:0:0/56) from distinct /64s, per each.
	n56 := 0
	for i := range 256 {
		lc := admit(fmt.Sprintf("2001:db8:0:%x::1", i))
		if lc == nil {
			break
		}
		if first == nil {
			first = lc
		}
		n56++
		if admit(fmt.Sprintf("2001:db8:0:%x::2", i)) != nil {
			n56++
		}
	}
	require.Equal(t, connsPer56Factor*per, n56, "connections one /56 holds")
	require.NotNil(t, admit("2001:db8:0:1ff::1"), "another /56 of the /48 was refused")
	// Fill the rest of the /48 from its other /56s.
	n48 := n56 + 1
	for i := 0x100; i <= 0xffff && n48 < 10*connsPer48Factor*per; i += 0x100 {
		for j := 0; j < connsPer56Factor; j++ {
			if admit(fmt.Sprintf("2001:db8:0:%x::1", i+j)) != nil {
				n48++
			}
		}
	}
	require.Equal(t, connsPer48Factor*per, n48, "connections one /48 holds")
	require.NotNil(t, admit("2001:db8:1::1"), "another /48 was refused")
	require.NotNil(t, admit("192.0.2.1"), "an IPv4 source was refused")
	l.mu.Lock()
	l.forget(first)
	l.mu.Unlock()
	assert.NotNil(t, admit("2001:db8:0:ff::1"), "a closed connection did not free its place in its /56 and /48")
	st := l.Stats()
	assert.Equal(t, n48+2, st.Open, "stats %+v", st)
	assert.NotZero(t, st.Refused, "stats %+v", st)
}

// TestListenerReturnsMemory: when the connections open fall to an eighth
// of a peak of returnConns or more (a flood drained), the listener asks
// for the freed memory to go back to the system; below that peak it does
// not.
func TestListenerReturnsMemory(t *testing.T) {
	t.Parallel()
	ret := &MemoryReturner{}
	requests := func() int {
		ret.mu.Lock()
		defer ret.mu.Unlock()
		return ret.requests
	}
	l, addr := startLimited(t, ListenerOptions{MaxConnsPerSource: 100, MemoryReturner: ret})
	l.mu.Lock()
	l.returnConns = 8
	l.mu.Unlock()
	before := requests()
	var conns []net.Conn
	for range 8 {
		c := dialFrom(t, "127.0.0.1", addr)
		require.Equal(t, 200, getHealth(c))
		conns = append(conns, c)
	}
	eventually(t, "8 connections open", func() bool { return l.Stats().Open == 8 })
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	eventually(t, "the drained flood to ask for memory back", func() bool { return requests() > before })
	// The request comes when the eighth is reached (one connection open
	// here), so the last close may still be on its way.
	eventually(t, "every connection closed", func() bool { return l.Stats().Open == 0 })
	l.mu.Lock()
	assert.LessOrEqual(t, l.connPeak, 1, "the peak starts again from what was open then")
	l.mu.Unlock()
}

// TestListenerReturnsMemoryAgain: the connections open when a drained
// flood's memory was returned (a good client's, kept alive through it)
// ask for it once more when they fall to an eighth: what they allocated
// during the flood lay among its objects and kept the heap's spans in
// use. Then nothing more is asked.
func TestListenerReturnsMemoryAgain(t *testing.T) {
	t.Parallel()
	ret := &MemoryReturner{}
	l := LimitListener(nil, ListenerOptions{MaxConns: 1000, MaxConnsPerSource: 1000, MemoryReturner: ret})
	l.returnConns = 64
	from := func(ip string) net.Conn { return fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1234}} }
	admit := func(ip string, n int) []*limitedConn {
		var out []*limitedConn
		for range n {
			lc, _, ok, _ := l.admit(from(ip))
			require.True(t, ok)
			out = append(out, lc)
		}
		return out
	}
	good := admit("198.51.100.1", 16)
	flood := admit("203.0.113.1", 112)
	for _, c := range flood {
		require.NoError(t, c.Close())
	}
	require.Equal(t, 1, requestsOf(ret), "the drained flood (128 to 16 open)")
	for _, c := range good[:13] {
		require.NoError(t, c.Close())
	}
	assert.Equal(t, 1, requestsOf(ret), "3 of 16 open")
	require.NoError(t, good[13].Close())
	assert.Equal(t, 2, requestsOf(ret), "what outlived the flood at an eighth (2 of 16)")
	for _, c := range good[14:] {
		require.NoError(t, c.Close())
	}
	more := admit("198.51.100.2", 40)
	for _, c := range more {
		require.NoError(t, c.Close())
	}
	assert.Equal(t, 2, requestsOf(ret), "no flood, nothing outlived one: nothing more")
}

// TestBusyShedSparesTrustedProxy: a trusted proxy holds most connections
// (it carries every visitor behind it), each busy with a request; a
// direct newcomer at the total cap does not take the place of a proxied
// visitor's connection in the middle of its request, since the
// connections of trusted proxies count neither as a source holding many
// nor as a victim of the busy-shed rule.
func TestBusyShedSparesTrustedProxy(t *testing.T) {
	t.Parallel()
	l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 4,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}})
	from := func(ip string) net.Conn { return fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1234}} }
	for range 15 {
		lc, _, ok, _ := l.admit(from("10.0.0.1"))
		require.True(t, ok, "a trusted proxy is exempt from the per-source cap")
		l.ConnState(lc, http.StateActive) // a visitor's request in progress
	}
	lc, _, ok, _ := l.admit(from("198.51.100.9"))
	require.True(t, ok)
	l.ConnState(lc, http.StateActive)
	_, victim, _, _ := l.admit(from("198.51.100.10"))
	if victim != nil {
		assert.NotEqual(t, "src 10.0.0.1", victim.groups[0].key, "a proxied visitor's busy connection is not shed")
	}
	assert.Zero(t, l.Stats().BusyShed)
}

// TestConnTimesAreMonotonic: the times a connection's body read and
// write began are kept on the monotonic clock (nanoseconds since
// monoBase), not the wall clock, so that a step of the wall clock (NTP)
// makes no connection look stalled or slow.
func TestConnTimesAreMonotonic(t *testing.T) {
	t.Parallel()
	before := monoNow()
	c := &limitedConn{}
	c.startBody()
	bs := c.bodySince.Load()
	assert.GreaterOrEqual(t, bs, before)
	assert.LessOrEqual(t, bs, monoNow())
	assert.Less(t, bs, time.Now().UnixNano()/2, "not wall-clock nanoseconds")
}

// TestRefuseLingerShortens: a refused connection is kept refuseLinger to
// hand its answer over while few are being answered, and less as they
// approach maxRefusing, so that clients that never close cannot keep every
// answering slot for the whole linger.
func TestRefuseLingerShortens(t *testing.T) {
	t.Parallel()
	assert.Equal(t, refuseLinger, refuseLingerFor(1))
	assert.Equal(t, refuseLinger/2+refuseLinger/maxRefusing, refuseLingerFor(maxRefusing/2))
	assert.Equal(t, minRefuseLinger, refuseLingerFor(maxRefusing))
	for n := 2; n <= maxRefusing; n++ {
		assert.LessOrEqual(t, refuseLingerFor(n), refuseLingerFor(n-1))
	}
}
