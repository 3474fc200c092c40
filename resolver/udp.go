package resolver

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// Limits of the shared UDP sockets (see the package doc, "Sockets and
// spoofing").
const (
	// socketsPerServer is how many sockets, each on its own random port,
	// a Client keeps open to one server; a question takes one at random,
	// so that simultaneous questions leave from different ports (RFC 5452
	// §9.2).
	socketsPerServer = 4
	// socketMaxQueries and socketMaxAge retire a socket: it takes no new
	// question after this many, or after this long, and closes once its
	// last question ends. A port stays in use for a bounded time, as
	// with a pool rotated in the background.
	socketMaxQueries = 1024
	socketMaxAge     = 30 * time.Second
	// socketIdle closes a socket that had no question in flight for this
	// long (and ends its reader goroutine).
	socketIdle = 2 * time.Second
	// socketReadBuffer is the receive buffer asked for a socket: one
	// socket now takes the replies that a socket per question used to,
	// and a burst of them must not overflow it.
	socketReadBuffer = 1 << 20
	// maxDatagram is the largest UDP payload read.
	maxDatagram = 65535
	// replyQueue is the reply buffer of one lookup; a reader never
	// blocks on a lookup: replies past it are dropped (a lookup reads
	// them as they come, and each attempt needs one).
	replyQueue = 16
)

// reply is what a socket's reader hands to the lookup that registered the
// query: a decoded message that matches it, or why the attempt failed
// (ReasonMalformed for an undecodable datagram carrying its ID,
// ReasonNetwork for an unreachable server).
type reply struct {
	server int // index of the server in the lookup's list
	msg    *dns.Msg
	reason Reason
}

// waiter receives the replies to every attempt of one lookup.
type waiter struct {
	ch chan reply
}

// deliver hands r to the lookup without ever blocking the reader.
func (w *waiter) deliver(r reply) {
	select {
	case w.ch <- r:
	default:
	}
}

// entry is one query in flight on a socket.
type entry struct {
	q      dns.Question
	w      *waiter
	server int
	wire   []byte // the packed query; its first two bytes take the ID of each send
	// resent marks a query sent again after its first socket was refused
	// (see unreachable): a second refusal is the server's.
	resent bool
	// moved is where the query was sent again, released with it.
	moved *ticket
}

// socket is one connected UDP socket to one server, on a port the kernel
// chose at random, shared by the queries of a Client in flight to that
// server. A connected socket only receives datagrams whose source address
// and port are the server's; the reader matches each to a query by ID and
// question (demux) and drops what matches none.
type socket struct {
	pool *pool
	key  string
	conn *net.UDPConn
	born time.Time

	mu      sync.Mutex
	pending map[uint16]entry
	sent    int
	retired bool // takes no new query; closes when pending is empty
	refused bool // got an ICMP error (see unreachable)
	closed  bool
	idle    *time.Timer
}

// pool holds a Client's sockets. Its zero value is ready to use.
type pool struct {
	mu    sync.Mutex
	socks map[string][]*socket
	heard atomic.Int64 // UnixNano of the latest datagram from any server
	drops atomic.Int64 // datagrams dropped because they matched no query
}

// ticket is one registered query: the socket it went out on and its ID.
type ticket struct {
	s  *socket
	id uint16
}

// send registers q under a fresh random ID on one of server's sockets and
// sends it. The ID stays registered until release.
func (p *pool) send(server string, idx int, q *dns.Msg, w *waiter) (ticket, error) {
	m := *q
	m.Id = 0
	b, err := m.Pack()
	if err != nil {
		return ticket{}, fmt.Errorf("resolver: pack query: %w", err)
	}
	return p.transmit(server, entry{q: q.Question[0], w: w, server: idx, wire: b})
}

// transmit registers e on one of server's sockets and sends its query. A
// socket whose send reports an ICMP error is retired (see unreachable) and
// another one is tried.
func (p *pool) transmit(server string, e entry) (ticket, error) {
	for try := 0; try < 3; try++ {
		s, err := p.socket(server)
		if err != nil {
			return ticket{}, err
		}
		t, err := s.transmit(e)
		switch {
		case err == nil:
			return t, nil
		case errors.Is(err, errRetired):
			continue // the socket retired or closed meanwhile
		case icmpError(err):
			s.unreachable()
			continue
		}
		return ticket{}, fmt.Errorf("resolver: send query: %w", err)
	}
	return ticket{}, errors.New("resolver: no usable socket")
}

// errRetired is the error of a send on a socket that takes no new query.
var errRetired = errors.New("resolver: socket retired")

// transmit registers e on s under a fresh random ID and sends its query.
func (s *socket) transmit(e entry) (ticket, error) {
	id, ok := s.register(e)
	if !ok {
		return ticket{}, errRetired
	}
	b := slices.Clone(e.wire)
	binary.BigEndian.PutUint16(b, id)
	if _, err := s.conn.Write(b); err != nil {
		s.release(id)
		return ticket{}, err
	}
	return ticket{s, id}, nil
}

// icmpError reports whether err is how a connected UDP socket reports an
// ICMP error: port, host or network unreachable.
func icmpError(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// socket returns a socket to server: one of its open ones at random, or a
// new one when fewer than socketsPerServer are usable.
func (p *pool) socket(server string) (*socket, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.socks == nil {
		p.socks = make(map[string][]*socket)
	}
	live := p.socks[server][:0]
	for _, s := range p.socks[server] {
		if s.usable() {
			live = append(live, s)
		}
	}
	p.socks[server] = live
	if len(live) >= socketsPerServer {
		return live[randomInt(len(live))], nil
	}
	s, err := p.dial(server)
	if err != nil {
		return nil, err
	}
	p.socks[server] = append(live, s)
	return s, nil
}

// dial opens a connected UDP socket to server on a random local port.
func (p *pool) dial(server string) (*socket, error) {
	raddr, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		return nil, fmt.Errorf("resolver: server address: %w", err)
	}
	conn, err := net.DialUDP("udp", nil, raddr)
	if err != nil {
		return nil, fmt.Errorf("resolver: dial: %w", err)
	}
	_ = conn.SetReadBuffer(socketReadBuffer) // best effort: the kernel caps it at net.core.rmem_max
	s := &socket{pool: p, key: server, conn: conn, born: time.Now(), pending: make(map[uint16]entry)}
	go s.read()
	return s, nil
}

// usable reports whether s takes new queries, and retires it when it has
// served its share. The caller holds p.mu.
func (s *socket) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.retired && (s.sent >= socketMaxQueries || time.Since(s.born) >= socketMaxAge) {
		s.retired = true
		if len(s.pending) == 0 {
			s.closeLocked()
		}
	}
	return !s.retired && !s.closed
}

// register reserves a random ID that no query in flight on s uses.
func (s *socket) register(e entry) (uint16, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.retired {
		return 0, false
	}
	for {
		id := randomID()
		if _, taken := s.pending[id]; taken {
			continue
		}
		s.pending[id] = e
		s.sent++
		if s.idle != nil {
			s.idle.Stop()
			s.idle = nil
		}
		return id, true
	}
}

// release forgets the query with id, and where it was sent again: later
// replies to it are dropped.
func (s *socket) release(id uint16) {
	s.mu.Lock()
	moved := s.pending[id].moved
	s.forgetLocked(id)
	s.mu.Unlock()
	if moved != nil {
		moved.s.release(moved.id)
	}
}

// forgetLocked deletes the query with id and closes s, or arms its idle
// timer, when it was the last one. The caller holds s.mu.
func (s *socket) forgetLocked(id uint16) {
	delete(s.pending, id)
	if len(s.pending) > 0 || s.closed {
		return
	}
	if s.retired {
		s.closeLocked()
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(socketIdle, s.closeIdle)
	}
}

// closeIdle closes s when it still has no query in flight.
func (s *socket) closeIdle() {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 || s.closed {
		return
	}
	s.closeLocked()
	socks := s.pool.socks[s.key]
	for i, o := range socks {
		if o == s {
			s.pool.socks[s.key] = append(socks[:i:i], socks[i+1:]...)
			break
		}
	}
}

// closeLocked closes the socket, which ends its reader. The caller holds
// s.mu.
func (s *socket) closeLocked() {
	s.closed = true
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	_ = s.conn.Close()
}

// read receives datagrams until the socket is closed. An error is an
// ICMP error (see unreachable).
func (s *socket) read() {
	buf := make([]byte, maxDatagram)
	for {
		n, err := s.conn.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.unreachable()
			if !icmpError(err) {
				time.Sleep(10 * time.Millisecond) // an unexpected error: do not spin
			}
			continue
		}
		s.pool.heard.Store(time.Now().UnixNano())
		s.handle(buf[:n])
	}
}

// handle delivers one datagram to the query it answers, or drops it.
func (s *socket) handle(b []byte) {
	var e entry
	var ok bool
	_, m, err := demux(b, func(id uint16) (dns.Question, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		e, ok = s.pending[id]
		return e.q, ok
	})
	switch {
	case err == nil:
		e.w.deliver(reply{server: e.server, msg: m})
	case errors.Is(err, errUndecodable) && ok:
		e.w.deliver(reply{server: e.server, reason: ReasonMalformed})
	default:
		s.pool.drops.Add(1)
	}
}

// unreachable handles an ICMP error on s ("port unreachable", or host or
// network unreachable). Anyone who knows the port of s can forge one: it
// names no query ID, and it reaches every query in flight on s. So the
// error is not taken as the server's reply: s is retired (it takes no new
// query, and still delivers the replies to the queries in flight on it),
// and each of these queries is sent again on another of the server's
// sockets (see pool.socket), on its own random port. A query refused on
// that one as well fails with
// ReasonNetwork: the server's port is really closed, and the lookup ends
// after two round trips. Only the first error of s counts.
func (s *socket) unreachable() {
	s.mu.Lock()
	if s.refused || s.closed {
		s.mu.Unlock()
		return
	}
	s.refused, s.retired = true, true
	var again []uint16
	for id, e := range s.pending {
		switch {
		case e.resent:
			e.w.deliver(reply{server: e.server, reason: ReasonNetwork})
		case e.moved == nil:
			again = append(again, id)
		}
	}
	if len(s.pending) == 0 {
		s.closeLocked()
	}
	s.mu.Unlock()
	for _, id := range again {
		s.resend(id)
	}
}

// resend sends the query with id, in flight on s, again on another socket
// of the same server, and links the two, so that releasing the query
// releases both.
func (s *socket) resend(id uint16) {
	s.mu.Lock()
	e, ok := s.pending[id]
	s.mu.Unlock()
	if !ok {
		return // its lookup ended meanwhile
	}
	again := e
	again.resent, again.moved = true, nil
	t, err := s.pool.transmit(s.key, again)
	if err != nil {
		e.w.deliver(reply{server: e.server, reason: ReasonNetwork})
		return
	}
	s.mu.Lock()
	cur, ok := s.pending[id]
	if ok {
		cur.moved = &t
		s.pending[id] = cur
	}
	s.mu.Unlock()
	if !ok {
		t.s.release(t.id) // its lookup ended meanwhile
	}
}

// Why demux refuses a datagram.
var (
	errShort       = errors.New("resolver: datagram shorter than a DNS header")
	errUnknownID   = errors.New("resolver: no query in flight has this ID")
	errUndecodable = errors.New("resolver: reply carries a known ID but is not a DNS message")
	errNotReply    = errors.New("resolver: not a reply to the query with this ID")
)

// demux matches a datagram to the query in flight with its ID: pending
// returns the question registered under an ID. It returns the decoded
// reply when its ID is registered, it is a response (QR set), and its one
// question equals the registered one (name in any case, type and class;
// RFC 5452 §9.1). Anything else is refused: errUndecodable when the ID is
// registered but the datagram is no DNS message, another error when it
// matches no query (it must then be dropped: a spoofed or stray datagram
// never ends a lookup).
func demux(b []byte, pending func(id uint16) (dns.Question, bool)) (uint16, *dns.Msg, error) {
	if len(b) < 12 {
		return 0, nil, errShort
	}
	id := binary.BigEndian.Uint16(b)
	q, ok := pending(id)
	if !ok {
		return id, nil, errUnknownID
	}
	m := new(dns.Msg)
	if err := m.Unpack(b); err != nil {
		return id, nil, fmt.Errorf("%w: %w", errUndecodable, err)
	}
	if !m.Response || m.Opcode != dns.OpcodeQuery || len(m.Question) != 1 || !sameQuestion(m.Question[0], q) {
		return id, nil, errNotReply
	}
	return id, m, nil
}

func sameQuestion(a, b dns.Question) bool {
	return a.Qtype == b.Qtype && a.Qclass == b.Qclass && strings.EqualFold(a.Name, b.Name)
}

// randomID returns an unpredictable 16-bit query ID (RFC 5452 §9.2).
func randomID() uint16 {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return binary.BigEndian.Uint16(b[:])
}

// randomInt returns an unpredictable int in [0, n), for a small n (the
// modulo bias is below n/65536).
func randomInt(n int) int { return int(randomID()) % n }
