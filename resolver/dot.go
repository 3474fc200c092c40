package resolver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// DNS over TLS (RFC 7858): a server given as "tls://host:port" is asked
// over one TLS connection, kept open while questions come and shared by
// the questions in flight (pipelined, answers matched by ID and
// question, RFC 7766 §6.2.1.1). The server's certificate must be valid
// for host (a name or an IP address) from the system roots, or from
// Client.RootCAs. Every query is padded to a multiple of 128 octets
// (RFC 7830, the block-length policy of RFC 8467 §4.1), so that its size
// does not tell the question.
const (
	// TLSPrefix marks a server address that is asked over DNS over TLS.
	TLSPrefix = "tls://"
	// DefaultTLSPort is the port of DNS over TLS (RFC 7858 §3.1).
	DefaultTLSPort = "853"
	// dotIdle closes a connection that had no question in flight for
	// this long: below the idle time-outs of common servers (Unbound's
	// tcp-idle-timeout is 30 s), so that the client, not the server,
	// closes it.
	dotIdle = 10 * time.Second
	// dotPadBlock is the block length queries are padded to (RFC 8467).
	dotPadBlock = 128
	// dotMaxPending bounds the questions in flight on one connection.
	dotMaxPending = 4096
)

// IsTLS reports whether server is a DNS-over-TLS address ("tls://…").
func IsTLS(server string) bool { return strings.HasPrefix(server, TLSPrefix) }

// dotPool holds a Client's DNS-over-TLS connections, one per server. Its
// zero value is ready to use.
type dotPool struct {
	mu    sync.Mutex
	conns map[string]*dotConn
}

// dotConn is one TLS connection to one server and its questions in
// flight.
type dotConn struct {
	pool *dotPool
	key  string
	conn net.Conn

	wmu sync.Mutex // one framed write at a time

	mu      sync.Mutex
	pending map[uint16]dotWait
	used    bool // a question was sent on it before the current one
	closed  bool
	idle    *time.Timer
}

// dotWait is one question in flight on a connection.
type dotWait struct {
	q  dns.Question
	ch chan *dns.Msg
}

// errDoTClosed is the error of a question whose connection closed before
// its answer came.
var errDoTClosed = fmt.Errorf("resolver: DNS-over-TLS connection closed: %w", net.ErrClosed)

// sendTLS asks q of the tls:// server (index idx of the lookup's list) in
// the background and hands the answer, or the failure, to w, as a UDP
// socket's reader does. It is the DNS-over-TLS side of attempts.
func (c *Client) sendTLS(ctx context.Context, server string, idx, seq int, q *dns.Msg, w *waiter) {
	go func() {
		m, err := c.exchangeTLS(ctx, server, q)
		switch {
		case err == nil:
			c.pool.heard.Store(time.Now().UnixNano())
			w.deliver(reply{server: idx, seq: seq, msg: m, tcp: true})
		case ctx.Err() == nil:
			// A refused or reset connection, a failed handshake or a
			// certificate that does not verify: the server cannot be
			// asked, as when its UDP port is closed.
			w.deliver(reply{server: idx, seq: seq, reason: ReasonNetwork})
		}
	}()
}

// exchangeTLS asks q of the tls:// server and returns its answer. A
// question that fails on a connection that had served others before (the
// server may have closed it as idle) is asked once more on a new one.
func (c *Client) exchangeTLS(ctx context.Context, server string, q *dns.Msg) (*dns.Msg, error) {
	for try := 0; ; try++ {
		conn, err := c.dot.conn(ctx, server, c.tlsConfig(server))
		if err != nil {
			return nil, err
		}
		m, reused, err := conn.exchange(ctx, q)
		if err == nil || !reused || try > 0 || ctx.Err() != nil {
			return m, err
		}
	}
}

// tlsConfig is the TLS configuration for server: its host verified from
// RootCAs (nil: the system roots), TLS 1.2 or later, ALPN "dot".
func (c *Client) tlsConfig(server string) *tls.Config {
	host, _, _ := net.SplitHostPort(strings.TrimPrefix(server, TLSPrefix))
	return &tls.Config{ServerName: host, RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12, NextProtos: []string{"dot"}}
}

// conn returns the open connection to server, or dials a new one.
func (p *dotPool) conn(ctx context.Context, server string, cfg *tls.Config) (*dotConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if dc := p.conns[server]; dc != nil && !dc.isClosed() {
		return dc, nil
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{}, Config: cfg}
	raw, err := d.DialContext(ctx, "tcp", strings.TrimPrefix(server, TLSPrefix))
	if err != nil {
		return nil, fmt.Errorf("resolver: DNS over TLS: %w", err)
	}
	dc := &dotConn{pool: p, key: server, conn: raw, pending: make(map[uint16]dotWait)}
	dc.idle = time.AfterFunc(dotIdle, dc.closeIdle)
	if p.conns == nil {
		p.conns = make(map[string]*dotConn)
	}
	p.conns[server] = dc
	go dc.read()
	return dc, nil
}

func (dc *dotConn) isClosed() bool {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	return dc.closed
}

// exchange sends q under a fresh ID on dc and waits for its answer or
// ctx's end. reused says whether dc had carried a question before.
func (dc *dotConn) exchange(ctx context.Context, q *dns.Msg) (m *dns.Msg, reused bool, err error) {
	ch := make(chan *dns.Msg, 1)
	id, reused, err := dc.register(dotWait{q: q.Question[0], ch: ch})
	if err != nil {
		return nil, false, err
	}
	defer dc.release(id)
	wire, err := padded(q, id)
	if err != nil {
		return nil, reused, err
	}
	if err := dc.write(ctx, wire); err != nil {
		dc.close()
		return nil, reused, fmt.Errorf("resolver: DNS over TLS: %w", err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, reused, errDoTClosed
		}
		return m, reused, nil
	case <-ctx.Done():
		return nil, reused, ctx.Err()
	}
}

// register reserves an ID no question in flight on dc uses.
func (dc *dotConn) register(w dotWait) (id uint16, reused bool, err error) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.closed {
		return 0, false, errDoTClosed
	}
	if len(dc.pending) >= dotMaxPending {
		return 0, false, errors.New("resolver: DNS over TLS: too many questions in flight")
	}
	for {
		id = dotID()
		if _, taken := dc.pending[id]; !taken {
			break
		}
	}
	dc.pending[id] = w
	dc.idle.Stop()
	reused, dc.used = dc.used, true
	return id, reused, nil
}

// release forgets the question id; the idle timer starts when none is
// left.
func (dc *dotConn) release(id uint16) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	delete(dc.pending, id)
	if len(dc.pending) == 0 && !dc.closed {
		dc.idle.Reset(dotIdle)
	}
}

// write sends one length-prefixed message (RFC 1035 §4.2.2), within
// ctx's deadline.
func (dc *dotConn) write(ctx context.Context, wire []byte) error {
	dc.wmu.Lock()
	defer dc.wmu.Unlock()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultLookupTimeout)
	}
	_ = dc.conn.SetWriteDeadline(deadline)
	frame := make([]byte, 2+len(wire))
	binary.BigEndian.PutUint16(frame, uint16(len(wire)))
	copy(frame[2:], wire)
	_, err := dc.conn.Write(frame)
	return err
}

// read hands each answer to the question it matches (its ID and
// question; anything else is dropped) until the connection fails or
// closes; then every question still in flight fails.
func (dc *dotConn) read() {
	defer dc.close()
	var size [2]byte
	for {
		if _, err := io.ReadFull(dc.conn, size[:]); err != nil {
			return
		}
		b := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(dc.conn, b); err != nil {
			return
		}
		m := new(dns.Msg)
		if m.Unpack(b) != nil || !m.Response || len(m.Question) != 1 {
			continue
		}
		dc.mu.Lock()
		w, ok := dc.pending[m.Id]
		if ok && sameDoTQuestion(w.q, m.Question[0]) {
			delete(dc.pending, m.Id)
			w.ch <- m // buffered, one answer per question
		}
		dc.mu.Unlock()
	}
}

// sameDoTQuestion reports whether an answer's question is the query's:
// the same name (in any case), type and class.
func sameDoTQuestion(a, b dns.Question) bool {
	return a.Qtype == b.Qtype && a.Qclass == b.Qclass && strings.EqualFold(a.Name, b.Name)
}

// closeIdle closes dc if no question is in flight.
func (dc *dotConn) closeIdle() {
	dc.mu.Lock()
	idle := len(dc.pending) == 0
	dc.mu.Unlock()
	if idle {
		dc.close()
	}
}

// close closes the connection, fails the questions in flight, and
// removes dc from its pool.
func (dc *dotConn) close() {
	dc.mu.Lock()
	if dc.closed {
		dc.mu.Unlock()
		return
	}
	dc.closed = true
	dc.idle.Stop()
	for id, w := range dc.pending {
		close(w.ch)
		delete(dc.pending, id)
	}
	dc.mu.Unlock()
	_ = dc.conn.Close()
	dc.pool.mu.Lock()
	if dc.pool.conns[dc.key] == dc {
		delete(dc.pool.conns, dc.key)
	}
	dc.pool.mu.Unlock()
}

// padded packs a copy of q with ID id and an EDNS0 padding option that
// makes it a multiple of dotPadBlock octets (RFC 7830, RFC 8467 §4.1).
func padded(q *dns.Msg, id uint16) ([]byte, error) {
	m := q.Copy()
	m.Id = id
	if m.IsEdns0() == nil {
		m.SetEdns0(DefaultUDPSize, false)
	}
	b, err := m.Pack()
	if err != nil {
		return nil, fmt.Errorf("resolver: pack query: %w", err)
	}
	pad := (dotPadBlock - (len(b)+4)%dotPadBlock) % dotPadBlock
	opt := m.IsEdns0()
	opt.Option = append(opt.Option, &dns.EDNS0_PADDING{Padding: make([]byte, pad)})
	b, err = m.Pack()
	if err != nil {
		return nil, fmt.Errorf("resolver: pack query: %w", err)
	}
	return b, nil
}

// dotID returns a random query ID.
func dotID() uint16 {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint16(b[:])
}
