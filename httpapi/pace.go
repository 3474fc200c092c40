package httpapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// Pacing of responses on one connection (RELIABILITY.md, "Connections").
const (
	// ShortWriteTimeout bounds writing the answer of every request but the
	// diagnostics (pages, assets, the OpenAPI document, health, errors):
	// they are ready at once, so a reader that takes longer is not
	// reading.
	ShortWriteTimeout = 5 * time.Second
	// drainWait bounds the wait, before answering a request, for the
	// previous response on the same connection to leave the send queue.
	// A client that pipelines requests and never reads its answers has
	// its connection closed then, instead of having request after request
	// read and answered into a full buffer.
	drainWait = 2 * time.Second
	// drainPoll is the first interval at which the send queue is looked
	// at where the kernel cannot report it empty (see drained); it
	// doubles after each look, so that a connection that does not drain
	// costs a handful of looks, not one every few milliseconds.
	drainPoll = 25 * time.Millisecond
)

// connKey is the context key of the request's *limitedConn.
type connKey struct{}

// withConn is the http.Server's ConnContext: it makes the connection
// known to pace.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// pace runs before every request: it waits (at most drainWait) until the
// connection's previous response has left the send queue, closing the
// connection when it does not, gives the answer ShortWriteTimeout to be
// written (diagnostics extend it, see extendWrite), and lets the listener
// time the request's body, if any, until its end (a slow body is shed at
// the total cap, see Listener).
func pace(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		lc, ok := r.Context().Value(connKey{}).(*limitedConn)
		if ok && !drained(lc, drainWait) {
			panic(http.ErrAbortHandler) // closes the connection; nothing more is read from it
		}
		if ok && r.Body != nil && r.Body != http.NoBody {
			lc.startBody()
			r.Body = &timedBody{ReadCloser: r.Body, c: lc}
		}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(ShortWriteTimeout))
		next(w, r)
	}
}

// timedBody ends its connection's body timing when the body ends (or
// fails); the connection's return to idle ends it otherwise.
type timedBody struct {
	io.ReadCloser
	c *limitedConn
}

// Read implements io.Reader.
func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.c.endBody()
	}
	return n, err
}

// extendWrite gives a diagnostic the server's whole write timeout: it
// may wait for a slot and run a full scan before it writes.
func extendWrite(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(ServerWriteTimeout))
}

// drained waits at most wait for c's send queue to empty and reports
// whether it did: parked until the kernel reports the queue empty where
// it can (waitSent), else looking at it again at growing intervals. A
// flood of non-reading connections, each waiting here, then costs the
// server no wake-up until each one's wait ends.
func drained(c *limitedConn, wait time.Duration) bool {
	if unsent(c.Conn) == 0 {
		return true
	}
	deadline := time.Now().Add(wait)
	if sent, handled := waitSent(c.Conn, deadline); handled {
		return sent
	}
	for poll := drainPoll; unsent(c.Conn) > 0; poll *= 2 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(poll, left))
	}
	return true
}
