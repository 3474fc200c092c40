package httpapi

import (
	"bytes"
	"container/list"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Connection limits (RELIABILITY.md). Each open connection costs a
// descriptor, a goroutine and buffers (about 10 KB idle, more with TLS or
// large headers); one address held 20,000 keep-alive connections before
// these limits existed.
const (
	// DefaultMaxConns caps the connections open at once. Go raises the
	// soft descriptor limit to the hard one at start-up (often 1,048,576
	// or 524,288, at least 4,096 on Debian), so 2,048 leaves room for the
	// resolver's and the fetch's sockets even at the smallest limit.
	DefaultMaxConns = 2048
	// DefaultMaxConnsPerSource caps the connections of one source (an
	// IPv4 address or an IPv6 /64, the rate-limit key). Browsers open at
	// most 6 per host; 32 leaves room for a shared NAT address.
	DefaultMaxConnsPerSource = 32
	// connsPer56Factor and connsPer48Factor cap the connections of all
	// sources of one IPv6 /56 and /48 at that many times the per-source
	// cap, the ratios of the aggregate rate limits (network56Factor,
	// network48Factor): one end site's prefix (RFC 6177) holds 256 or
	// 65,536 /64s, enough to fill DefaultMaxConns with busy connections
	// (a slow body is busy for ServerReadTimeout) if only the /64 were
	// capped.
	connsPer56Factor = network56Factor
	connsPer48Factor = network48Factor
	// fewConns bounds "holding few connections": a source (and its /56
	// and /48) holding fewer than fewConns counts as holding few, so it
	// may take a reserved place while it holds up to 3 and reach 4
	// through the reserve. A browser opens up to 6 per host, an
	// interactive client one or two.
	fewConns = 4
	// stallAfter is how long a connection may be blocked writing a
	// response (its reader does not read) before the listener may shed it
	// to make room at the total cap, as it sheds quiet connections.
	stallAfter = 3 * time.Second
	// slowBodyAfter and minBodyRate define a slow body: one the handler
	// has been reading for slowBodyAfter that has come at less than
	// minBodyRate bytes a second since it began. A real client sends the
	// largest body accepted (MaxBodyBytes, 8 KiB) in well under a second;
	// one sending a byte a second keeps its connection busy for
	// ServerReadTimeout. At the total cap a slow body is shed like a
	// stalled writer.
	slowBodyAfter = 2 * time.Second
	minBodyRate   = 1 << 10
	// quietShedAfter is how long a connection accepted must have waited
	// for its first request before a newcomer whose own source holds
	// many (fewConns or more) may take its place at the total cap. A
	// client sends its request within a round trip of connecting;
	// without it, sources holding many that reconnect as fast as they
	// are closed shed each other's connections as soon as they are
	// accepted, each shed wasting the accept, the goroutine and the
	// first read of the connection it sheds (the non-readers of the
	// capacity siege "mix": 2,600 a second, RELIABILITY.md,
	// "Connections"). A connection idle between requests may be taken
	// at any age when it is the one quiet longest: a source that keeps
	// its idle connections busy now and then does not make them its own.
	quietShedAfter = time.Second
	// maxRefusing bounds the connections refused at the total cap that
	// are being answered at once (a JSON 500 with Retry-After, then a
	// wait of at most refuseLinger for the client to close); past it a
	// refused connection is reset, as one over a per-source cap always
	// is, and as one from a source holding many is (it has connections
	// to carry its requests; answering each of a flood's would cost a
	// goroutine, a write and a linger).
	maxRefusing = 64
	// refuseLinger bounds how long a refused connection is kept to hand
	// its answer over: the client's request is read and dropped until it
	// closes, so that closing does not reset the connection under the
	// answer.
	refuseLinger = 2 * time.Second
	// minRefuseLinger is the shortest linger (refuseLingerFor), when
	// maxRefusing are being answered at once: still some round trips for
	// a client to read the answer and close.
	minRefuseLinger = 100 * time.Millisecond
	// refuseRetry is the Retry-After of a connection refused at the
	// total cap, in seconds.
	refuseRetry = 2
	// connWriteBuffer is the send buffer of each connection (the kernel
	// doubles it): every answer fits, and a client that pipelines
	// requests without reading blocks the server's writes after about
	// 128 KiB instead of the megabytes the buffer would grow to on its own.
	connWriteBuffer = 64 << 10
	// returnMemoryConns is the peak of open connections from which their
	// fall to an eighth of it returns memory to the system at once: 512
	// connections hold tens of megabytes of buffers and goroutine stacks
	// (a non-reading siege left 183 MB of RSS two minutes after it ended,
	// against a 28 MB baseline and 26 MB live).
	returnMemoryConns = 512
	// maxClosing bounds the connections shed or refused that wait to be
	// closed outside the accept loop (closeSoon); past it the accept loop
	// closes them itself, so that a closer slower than the flood holds
	// few descriptors beyond DefaultMaxConns (the soft limit may be 4,096)
	// and the attacker learns of its refusals without delay.
	maxClosing = 256
)

// Listen listens on the TCP address addr as the service does: TCP
// keep-alive probes are off on the connections it accepts. Every state of
// a connection has a timeout of its own (ServerReadHeaderTimeout,
// ServerReadTimeout, the write timeouts, ServerIdleTimeout), so the probes
// would find no dead peer those do not, and the system calls that set
// them on each new connection were a quarter of the accept loop's time
// in a flood of new connections (RELIABILITY.md, "Connections"). Wrap
// the listener with LimitListener.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("service listener: %w", err)
	}
	return ln, nil
}

// connReserveOf is the part of the total cap kept for sources holding
// fewer than fewConns connections (and, for IPv6, whose /56 and /48 do):
// an eighth. Sources holding more are admitted only below the rest.
func connReserveOf(maxConns int) int { return maxConns / 8 }

// ListenerOptions configures LimitListener; zero fields take the defaults.
type ListenerOptions struct {
	// MaxConns caps the connections open at once; 0 means DefaultMaxConns.
	MaxConns int
	// MaxConnsPerSource caps the connections of one source; 0 means
	// DefaultMaxConnsPerSource. An IPv6 /56 and /48 may hold
	// connsPer56Factor and connsPer48Factor times as many.
	MaxConnsPerSource int
	// TrustedProxies are exempt from the per-source cap (they carry many
	// clients); the total cap still applies.
	TrustedProxies []netip.Prefix
	// MemoryReturner returns memory to the system once a flood of
	// connections has drained; nil means one of the listener's own. A
	// service shares one with its handler ([Options].MemoryReturner).
	MemoryReturner *MemoryReturner
}

// Listener wraps a net.Listener with connection caps. A connection over
// the per-source cap (or, for IPv6, over the cap of the source's /56 or
// /48) is closed at once, before anything is read from it;
// the client sees a closed connection (there is no request yet to
// answer). The last eighth of the total cap is kept for sources holding
// few connections (fewer than fewConns, counted for the source and its
// IPv6 /56 and /48). At the cap, a new connection takes the place of the
// quiet connection (one that is idle between requests, or has not sent a
// request yet) that has been quiet longest, or else of the connection
// blocked longest (at least stallAfter) writing to a reader that does not
// read, or else of the slow body read longest (these two among the
// connections the last look found: agedCache); only when every
// connection is busy with a request and progressing is the new one
// refused (a JSON 500 with Retry-After while fewer than maxRefusing are
// being answered, else a reset). A newcomer whose own source holds many
// connections is refused when the quiet connection it would take has
// not sent its first request and was accepted less than quietShedAfter
// ago, and is reset when refused. Quiet connections are also
// freed by the http.Server's timeouts (ReadHeaderTimeout, IdleTimeout),
// which close them through this Listener's accounting. Set the server's
// ConnState to the Listener's ConnState so it knows which connections are
// quiet.
//
// The connections it returns also turn net/http's own plain-text error
// responses (400 for a malformed request, 431 for oversized headers, 501
// for an unknown transfer coding, 505 for an unsupported HTTP version),
// which the server writes without calling any handler, into the service's
// JSON error shape.
type Listener struct {
	net.Listener
	maxConns   int
	reserve    int // of maxConns, kept for sources holding few connections
	perSource  int
	proxies    []netip.Prefix
	stallAfter time.Duration
	slowAfter  time.Duration // slowBodyAfter; tests shorten it

	// writers and bodies count the connections writing and reading a
	// request body now (at least: a connection gone while reading one
	// may stay counted until its read ends); while either is 0 the accept
	// loop does not look through every connection for a stalled writer
	// or a slow body.
	writers atomic.Int64
	bodies  atomic.Int64

	// cmu guards closing and closer: the connections shed or refused,
	// closed by one goroutine outside the accept loop (closeSoon).
	cmu     sync.Mutex
	closing []pendingClose
	closer  bool // a goroutine is closing them
	inBatch int  // connections the closer took and has not closed yet

	mu    sync.Mutex
	open  int
	bySrc map[string]*connCount // by source and by IPv6 network (capKey.key)
	peak  int                   // most keys bySrc has held since it was last rebuilt
	// connPeak is the most connections open since memory was last
	// returned; returnConns the peak from which a fall to an eighth of it
	// returns memory to the system (memReturn).
	connPeak    int
	returnConns int
	// outlived is how many connections were open when a flood's
	// memory was returned (0: none since); when they fall to an eighth
	// of that, memory is returned again.
	outlived   int
	memReturn  *MemoryReturner
	refused    int
	shed       int
	stalled    int
	slowBodies int
	busyShed   int
	answered   int        // refused at the total cap with a JSON 500
	refusing   int        // refused connections being answered now
	quiet      *list.List // of *limitedConn, longest quiet first
	conns      *list.List // of *limitedConn, every open one
	slowCache  agedCache  // slow bodies found by the last look (slowBody)
	stallCache agedCache  // stalled writers found by the last look (stalledWriter)
}

// LimitListener returns ln with connection caps.
func LimitListener(ln net.Listener, o ListenerOptions) *Listener {
	l := &Listener{Listener: ln, maxConns: o.MaxConns, perSource: o.MaxConnsPerSource,
		proxies: normalizeProxies(o.TrustedProxies), bySrc: map[string]*connCount{}, quiet: list.New(), conns: list.New(),
		stallAfter: stallAfter, slowAfter: slowBodyAfter, returnConns: returnMemoryConns, memReturn: orOwnReturner(o.MemoryReturner)}
	if l.maxConns <= 0 {
		l.maxConns = DefaultMaxConns
	}
	l.reserve = connReserveOf(l.maxConns)
	if l.perSource <= 0 {
		l.perSource = DefaultMaxConnsPerSource
	}
	return l
}

// Accept returns the next connection within the caps, closing those over
// them: a connection refused at the total cap is answered with a JSON
// 500 and Retry-After while fewer than maxRefusing are being answered,
// any other refused connection is reset. The accept loop does nothing
// but take connections from the kernel and count them: the connections
// it sheds or resets are closed by another goroutine (closeSoon), and
// an admitted connection's send buffer is set by its own goroutine, so
// that a flood of new connections is drained from the kernel's accept
// queue as fast as it can be, and a visitor's connection behind it
// waits in that queue as little as possible.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc, victim, ok, answer := l.admit(c)
		if victim != nil {
			l.closeSoon(victim.Conn, false) // its accounting was already given back
		}
		if !ok {
			if answer {
				go l.answerRefused(c)
				continue
			}
			l.closeSoon(c, true) // a reset: nothing to deliver, no TIME_WAIT state kept for it
			continue
		}
		return lc, nil
	}
}

// pendingClose is a connection waiting to be closed (closeSoon).
type pendingClose struct {
	c     net.Conn
	reset bool // close with a reset (SO_LINGER 0)
}

// closeSoon has c closed (reset, with SO_LINGER 0, when reset is true) by
// a goroutine of its own rather than by the accept loop: the close of a
// TCP connection is a system call that sends its FIN or reset, as costly
// as the accept itself (a third of the accept loop's time in the
// slow-body siege). One goroutine closes them while any wait, and exits
// when none is left; past maxClosing waiting, the caller closes c itself.
func (l *Listener) closeSoon(c net.Conn, reset bool) {
	l.cmu.Lock()
	if len(l.closing)+l.inBatch >= maxClosing {
		l.cmu.Unlock()
		closeConn(pendingClose{c, reset})
		return
	}
	l.closing = append(l.closing, pendingClose{c, reset})
	start := !l.closer
	l.closer = true
	l.cmu.Unlock()
	if start {
		go l.closeAll()
	}
}

// closeAll closes the connections closeSoon was given until none is
// left.
func (l *Listener) closeAll() {
	var batch []pendingClose
	for {
		l.cmu.Lock()
		batch, l.closing = l.closing, batch[:0]
		l.inBatch = len(batch)
		if len(batch) == 0 {
			l.closer = false
			l.cmu.Unlock()
			return
		}
		l.cmu.Unlock()
		for i, p := range batch {
			closeConn(p)
			batch[i] = pendingClose{}
			l.cmu.Lock()
			l.inBatch--
			l.cmu.Unlock()
		}
	}
}

// closeConn closes p.c, with a reset when p.reset.
func closeConn(p pendingClose) {
	if tc, ok := p.c.(*net.TCPConn); ok && p.reset {
		_ = tc.SetLinger(0)
	}
	_ = p.c.Close()
}

// answerRefused writes the busy answer to a connection refused at the
// total cap, reads and drops what the client sends until it closes (at
// most refuseLingerFor the refused connections being answered), and
// closes it.
func (l *Listener) answerRefused(c net.Conn) {
	defer func() {
		l.mu.Lock()
		l.refusing--
		l.mu.Unlock()
	}()
	l.mu.Lock()
	linger := refuseLingerFor(l.refusing)
	l.mu.Unlock()
	_ = c.SetDeadline(time.Now().Add(linger))
	if _, err := c.Write(busyAnswer); err == nil {
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}
	_ = c.Close()
}

// connBusyMessage is the error of a connection refused at the total cap.
const connBusyMessage = "server busy: too many connections; retry after the number of seconds in Retry-After"

// refuseLingerFor returns how long a refused connection is kept to hand
// its answer over while refusing are being answered (this one included):
// refuseLinger for the first, shortening in proportion as they approach
// maxRefusing, at least minRefuseLinger, so that a flood of connections
// that never close keeps the answering slots busy for a short time only.
func refuseLingerFor(refusing int) time.Duration {
	left := max(maxRefusing-refusing+1, 0)
	return max(refuseLinger*time.Duration(left)/maxRefusing, minRefuseLinger)
}

// busyAnswer is the whole response to a connection refused at the total
// cap.
var busyAnswer = func() []byte {
	body, _ := Encode(errorBody{Error: connBusyMessage})
	return fmt.Appendf(nil, "HTTP/1.1 500 Internal Server Error\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n"+
		"Content-Type: application/json\r\nRetry-After: %d\r\nX-Content-Type-Options: nosniff\r\n\r\n%s", len(body), refuseRetry, body)
}()

// admit counts a new connection when the caps allow it, making room at
// the total cap by shedding the longest-quiet connection (returned as
// victim, to be closed by the caller outside the lock). answer reports,
// for a connection refused at the total cap, that it is to be answered
// (answerRefused; counted in refusing).
func (l *Listener) admit(c net.Conn) (lc, victim *limitedConn, ok, answer bool) {
	var a netip.Addr // the zero Addr counts as unknownSource
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		a = ap.Addr().Unmap().WithZone("")
	}
	groups := sourceGroups(a, l.perSource, connsPer56Factor*l.perSource, connsPer48Factor*l.perSource)
	exempt := a.IsValid() && inPrefixes(a, l.proxies)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !exempt && !l.underCaps(groups) {
		l.refused++
		return nil, nil, false, false
	}
	limit := l.maxConns
	if !exempt && !l.holdsFew(groups) {
		limit -= l.reserve
	}
	now := monoNow()
	if l.open >= limit {
		ownMany := !exempt && l.bySrc[groups[0].key] != nil && l.bySrc[groups[0].key].n >= fewConns
		if victim = l.victim(limit < l.maxConns, ownMany, now); victim == nil {
			l.refused++
			if l.refusing < maxRefusing && !ownMany {
				l.refusing++
				l.answered++
				return nil, nil, false, true
			}
			return nil, nil, false, false
		}
		l.forget(victim)
	}
	l.open++
	l.connPeak = max(l.connPeak, l.open)
	counts := make([]*connCount, len(groups))
	for i, g := range groups {
		n := l.bySrc[g.key]
		if n == nil {
			n = new(connCount)
			l.bySrc[g.key] = n
		}
		n.n++
		counts[i] = n
	}
	l.peak = max(l.peak, len(l.bySrc))
	lc = &limitedConn{Conn: c, l: l, groups: groups, counts: counts, exempt: exempt}
	lc.quiet, lc.accepted = l.quiet.PushBack(lc), now // new: quiet until its first request
	lc.all = l.conns.PushBack(lc)
	return lc, victim, true, false
}

// connCount is the number of open connections of one group (a source,
// an IPv6 /56 or /48); each connection keeps pointers to its groups'
// counts, so that looking at its own takes no map lookup. Guarded by the
// Listener's mu.
type connCount struct{ n int }

// holdsFew reports whether the source and its networks hold fewer than
// fewConns connections each. Called with mu held.
func (l *Listener) holdsFew(groups []capKey) bool {
	for _, g := range groups {
		if n := l.bySrc[g.key]; n != nil && n.n >= fewConns {
			return false
		}
	}
	return true
}

// holdsFew reports whether c's source and networks hold fewer than
// fewConns connections each. Called with the Listener's mu held.
func (c *limitedConn) holdsFew() bool {
	for _, n := range c.counts {
		if n.n >= fewConns {
			return false
		}
	}
	return true
}

// victim picks the connection to shed to make room: the one quiet
// longest, else the one blocked longest writing (at least stallAfter),
// else the slow body read longest (slowBody; these two among those the
// last look found, agedCache), else, for a newcomer
// holding few while the sources holding many have more than the places
// outside the reserve, the newest busy connection of the source holding
// most; nil when there is none. The connections of sources holding few
// are spared while another will do, and always when the newcomer itself,
// its /56 or its /48 holds many (manyOnly). A newcomer whose own source
// (address or /64) holds many (quietOnly) takes only the place of a
// quiet connection: stalled writers and slow bodies are shed for
// newcomers whose own source holds few only. Otherwise a flood of slow
// bodies from sources holding many sheds its own connections as fast as
// it reconnects, and each of its newcomers costs the server a request
// read and a close where a refusal costs a reset (RELIABILITY.md,
// "Connections"); and a neighbour holding many in a visitor's /48 does
// not make the visitor one. Such a newcomer is refused when the quiet
// connection of a source holding many that has been quiet longest is
// still waiting for its first request and was accepted less than
// quietShedAfter before now; it takes no newer one instead, which would
// let a flood's fresh connections push others' idle ones forward.
// Called with mu held.
func (l *Listener) victim(manyOnly, quietOnly bool, now int64) *limitedConn {
	var spared *limitedConn
	for e := l.quiet.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		if !c.holdsFew() {
			if quietOnly && !c.served && time.Duration(now-c.accepted) < quietShedAfter {
				return nil // not a newer one instead: the flood's own would push a visitor's idle one forward
			}
			l.shed++
			return c
		}
		if spared == nil {
			spared = c
		}
	}
	if quietOnly {
		return nil
	}
	if stalled := l.stalledWriter(); stalled != nil {
		l.stalled++
		return stalled
	}
	if slow := l.slowBody(monoNow()); slow != nil {
		l.slowBodies++
		return slow
	}
	if manyOnly {
		return nil
	}
	if busy := l.overReserve(); busy != nil {
		l.busyShed++
		return busy
	}
	if spared != nil {
		l.shed++
		return spared
	}
	return nil
}

// slowBody returns a connection whose request body has been read for at
// least slowAfter and has come at under minBodyRate bytes a second since
// it began: the one read longest, among those the last look found (see
// agedCache). Called with mu held.
func (l *Listener) slowBody(now int64) *limitedConn {
	if l.bodies.Load() == 0 {
		l.slowCache.reset()
		return nil
	}
	return l.slowCache.next(l.conns, now, l.slowAfter, bodyAge)
}

// bodyAge reports when c's request body began (0: none) and, if it is
// not slow at now, the earliest it could be: its bytes only grow, so not
// before it has been read for slowAfter, nor before its bytes so far
// come at under minBodyRate.
func bodyAge(c *limitedConn, now int64, slowAfter time.Duration) (since int64, due bool, earliest int64) {
	since = c.bodySince.Load()
	if since == 0 {
		return 0, false, 0
	}
	read := float64(c.read.Load() - c.bodyBase.Load())
	earliest = since + max(int64(slowAfter), int64(read/minBodyRate*float64(time.Second))+1)
	took := time.Duration(now - since)
	due = took >= slowAfter && read < minBodyRate*took.Seconds()
	if again := c.bodySince.Load(); again != since {
		// The body ended, or another began, while these were read: the
		// bytes counted are not its own, and a new one is not slow yet.
		return again, false, now + int64(slowAfter)
	}
	return since, due, earliest
}

// overReserve returns, when the connections of sources holding many
// (fewConns or more) are more than the places outside the reserve, the
// newest connection of the source holding most: the reserve for sources
// holding few covers busy connections too. The connections of trusted
// proxies are left out of both counts: a proxy carries the requests of
// every visitor behind it, so it would always be the source holding most.
// Called with mu held.
func (l *Listener) overReserve() *limitedConn {
	many := 0
	var proxied map[string]bool // source keys of trusted proxies
	for e := l.conns.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		if c.exempt {
			if proxied == nil {
				proxied = map[string]bool{}
			}
			proxied[c.groups[0].key] = true
			continue
		}
		if !c.holdsFew() {
			many++
		}
	}
	if many <= l.maxConns-l.reserve {
		return nil
	}
	top, most := "", 0
	for k, n := range l.bySrc {
		if n.n > most && !strings.HasPrefix(k, networkGroupPrefix) && !proxied[k] {
			top, most = k, n.n
		}
	}
	for e := l.conns.Back(); e != nil; e = e.Prev() {
		if c := e.Value.(*limitedConn); c.groups[0].key == top && !c.exempt {
			return c
		}
	}
	return nil
}

// stalledWriter returns a connection blocked writing for at least
// stallAfter: the one blocked longest, among those the last look found
// (see agedCache). Called with mu held.
func (l *Listener) stalledWriter() *limitedConn {
	if l.writers.Load() == 0 {
		l.stallCache.reset()
		return nil
	}
	return l.stallCache.next(l.conns, monoNow(), l.stallAfter, writeAge)
}

// writeAge reports when c's write in progress began (0: none) and, if
// it is not stalled at now, the earliest it could be.
func writeAge(c *limitedConn, now int64, stallAfter time.Duration) (since int64, due bool, earliest int64) {
	since = c.writingSince.Load()
	if since == 0 {
		return 0, false, 0
	}
	return since, time.Duration(now-since) >= stallAfter, since + int64(stallAfter)
}

// forget gives back c's place; it runs once per connection. Called with
// mu held.
func (l *Listener) forget(c *limitedConn) {
	if c.gone {
		return
	}
	c.gone = true
	if c.quiet != nil {
		l.quiet.Remove(c.quiet)
		c.quiet = nil
	}
	if c.all != nil {
		l.conns.Remove(c.all)
		c.all = nil
	}
	l.open--
	c.endBody()
	for i, g := range c.groups {
		n := c.counts[i]
		if n.n--; n.n <= 0 {
			delete(l.bySrc, g.key)
		}
	}
	if len(l.bySrc) == 0 && l.peak > rebuildMin {
		l.bySrc, l.peak = map[string]*connCount{}, 0 // Go maps never shrink
	}
	switch {
	case l.connPeak >= l.returnConns && l.open <= l.connPeak/8:
		// A flood of connections has drained: their buffers and
		// goroutine stacks are garbage, which the collector (GOGC 400
		// under serve) would keep as heap for minutes (RELIABILITY.md,
		// "Memory after each siege").
		l.outlived = l.open
	case l.outlived > 0 && l.open <= l.outlived/8:
		// The connections that outlived the flood (a good client's,
		// kept alive through it) have mostly closed too: what they
		// allocated during it lay among the flood's objects and kept
		// the heap's spans it lay in in use.
		l.outlived = 0
	default:
		return
	}
	l.connPeak = l.open
	l.slowCache.reset() // let go of the flood's connections
	l.stallCache.reset()
	l.memReturn.request()
}

// underCaps reports whether every group has room for one more
// connection. Called with mu held.
func (l *Listener) underCaps(groups []capKey) bool {
	for _, g := range groups {
		if n := l.bySrc[g.key]; n != nil && n.n >= g.cap {
			return false
		}
	}
	return true
}

// ConnState tracks which connections are quiet; set it as the
// http.Server's ConnState.
func (l *Listener) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	if state != http.StateNew && state != http.StateActive {
		// A request's body ends with its connection's request, even for
		// a connection already shed (closed later by closeSoon): the
		// count of bodies in progress must not drift.
		lc.endBody()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lc.gone {
		return
	}
	switch state {
	case http.StateIdle:
		if lc.quiet == nil {
			lc.quiet = l.quiet.PushBack(lc)
		}
	case http.StateActive, http.StateHijacked:
		lc.served = true
		if lc.quiet != nil {
			l.quiet.Remove(lc.quiet)
			lc.quiet = nil
		}
	case http.StateClosed:
		l.forget(lc)
	}
}

// ListenerStats are a Listener's counters.
type ListenerStats struct {
	Open    int // connections open now
	Sources int // distinct sources with open connections
	Refused int // connections closed at once for being over a cap
	Shed    int // quiet connections closed to make room at the total cap
	Stalled int // connections blocked writing, closed to make room at the total cap
	// SlowBodies counts connections sending a request body slowly, closed
	// to make room at the total cap.
	SlowBodies int
	// BusyShed counts busy connections of sources holding many, closed to
	// make room in the reserve for a source holding few.
	BusyShed int
	// Answered counts connections refused at the total cap that were
	// answered with a JSON 500 (the others, in Refused too, were reset).
	Answered int
	Quiet    int // open connections idle or waiting for their first request
}

// Stats returns the current counters.
func (l *Listener) Stats() ListenerStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	sources := 0
	for k := range l.bySrc {
		if !strings.HasPrefix(k, networkGroupPrefix) {
			sources++
		}
	}
	return ListenerStats{Open: l.open, Sources: sources, Refused: l.refused, Shed: l.shed, Stalled: l.stalled,
		SlowBodies: l.slowBodies, BusyShed: l.busyShed, Answered: l.answered, Quiet: l.quiet.Len()}
}

// limitedConn is an accepted connection counted by its Listener. Its
// fields other than Conn and writingSince are guarded by the Listener's
// mu.
type limitedConn struct {
	net.Conn
	l      *Listener
	groups []capKey      // its source and, for IPv6, the source's /56 and /48
	counts []*connCount  // the open connections of each of groups (bySrc)
	quiet  *list.Element // in l.quiet while quiet
	all    *list.Element // in l.conns while open
	gone   bool          // its place was given back
	exempt bool          // from a trusted proxy: never shed for being busy
	// accepted is monoNow when it was admitted; served, that a request
	// began on it since.
	accepted int64
	served   bool

	writingSince atomic.Int64 // monoNow when the Write in progress began; 0 when none
	read         atomic.Int64 // bytes read from the connection
	bodySince    atomic.Int64 // monoNow when the handler began reading a request body; 0 when none
	bodyBase     atomic.Int64 // read when it began
	sized        atomic.Bool  // its send buffer was set (sizeBuffer)
}

// sizeBuffer sets the connection's send buffer to connWriteBuffer once,
// from the connection's own goroutine (its first Read or Write) rather
// than the accept loop.
func (c *limitedConn) sizeBuffer() {
	if c.sized.Load() || c.sized.Swap(true) {
		return
	}
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(connWriteBuffer)
	}
}

// Read passes p through, counting the bytes.
func (c *limitedConn) Read(p []byte) (int, error) {
	c.sizeBuffer()
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// startBody notes that a request body is being read from now on.
func (c *limitedConn) startBody() {
	c.bodyBase.Store(c.read.Load())
	if c.bodySince.Swap(monoNow()) == 0 && c.l != nil {
		c.l.bodies.Add(1)
	}
}

// endBody notes that no request body is being read.
func (c *limitedConn) endBody() {
	if c.bodySince.Swap(0) != 0 && c.l != nil {
		c.l.bodies.Add(-1)
	}
}

// Close closes the connection and gives its place back.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return err
}

// CloseWrite half-closes the connection when the underlying one can (the
// server uses it to let a client read an error before the close).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Write passes p through, except net/http's own plain-text error
// response, which it replaces by the JSON equivalent.
func (c *limitedConn) Write(p []byte) (int, error) {
	c.sizeBuffer()
	if c.l != nil {
		c.l.writers.Add(1)
		defer c.l.writers.Add(-1)
	}
	c.writingSince.Store(monoNow())
	defer c.writingSince.Store(0)
	if status, ok := serverErrorStatus(p); ok {
		if _, err := c.Conn.Write(jsonServerError(status)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// serverErrorHeaders are the headers net/http writes, and only it, on the
// error responses it sends without a handler (net/http server.go, "errorHeaders").
// The service's own responses always carry Cache-Control before
// Content-Type (headers are written sorted), so they never match.
const serverErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// serverErrorStatus recognises one of net/http's handler-less error
// responses ("HTTP/1.1 431 Request Header Fields Too Large" + the headers
// above + a one-line text, in a single write) and returns its status.
func serverErrorStatus(p []byte) (int, bool) {
	const prefix = "HTTP/1.1 "
	if len(p) < len(prefix)+3 || !bytes.HasPrefix(p, []byte(prefix)) {
		return 0, false
	}
	i := bytes.Index(p, []byte(serverErrorHeaders))
	if i < 0 || bytes.ContainsAny(p[:i], "\r\n") || bytes.ContainsAny(p[i+len(serverErrorHeaders):], "\r\n") {
		return 0, false
	}
	status, err := strconv.Atoi(string(p[len(prefix) : len(prefix)+3]))
	if err != nil || status < 400 || status > 599 {
		return 0, false
	}
	return status, true
}

// serverErrorMessages are the texts of the JSON bodies that replace
// net/http's own error responses.
var serverErrorMessages = map[int]string{
	http.StatusBadRequest:                  "malformed HTTP request",
	http.StatusRequestHeaderFieldsTooLarge: "request header fields too large",
	http.StatusNotImplemented:              "unsupported transfer encoding",
	http.StatusHTTPVersionNotSupported:     "HTTP version not supported",
}

// jsonServerError is the whole JSON response for status, closing the
// connection as net/http's original does.
func jsonServerError(status int) []byte {
	msg, ok := serverErrorMessages[status]
	if !ok {
		msg = "request refused"
	}
	body, _ := Encode(errorBody{Error: msg})
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n"+
		"Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// monoBase is the listener's reference instant: connection times are kept
// as the monotonic time elapsed since it (monoNow), so that a step of the
// wall clock (NTP, an operator) makes no connection look stalled.
var monoBase = time.Now()

// monoNow returns the nanoseconds elapsed since monoBase, plus one so that
// it is never 0 (which marks "none").
func monoNow() int64 { return int64(time.Since(monoBase)) + 1 }
