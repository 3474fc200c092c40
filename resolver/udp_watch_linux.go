//go:build linux

package resolver

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// canWatch: the watcher reads sockets (see socket.open); a socket with a
// reader of its own hands itself over once it holds tombstones only.
const canWatch = true

// watchWait is how long the watcher waits for datagrams at a time (ms);
// it ends once it has no socket left after a wait.
const watchWait = 500

// drainBatch bounds the datagrams a reader the watcher started reads from
// one socket before it arms it again: a flood at one port cannot hold
// that reader, nor the watcher, from the other sockets (an armed socket
// with more queued is reported again at the next wait, after those
// reported before it).
const drainBatch = 16

// watcher waits, from one goroutine, for datagrams on the sockets of a
// pool, through an epoll instance of its own. A socket reported ready is
// read by a goroutine of its own that lives while it handles what is
// queued (up to drainBatch datagrams): each datagram is handled as a
// reader of the socket's own would handle it (source check, then demux,
// compare and drop counting in socket.handle), as soon as it comes, and
// replies to different sockets are handled side by side. A socket is
// armed once (EPOLLONESHOT): it is reported again only once its reader
// has read what it could and armed it again, so that it never has two.
// Its zero value is ready to use; it runs only while it has sockets.
type watcher struct {
	mu      sync.Mutex
	epfd    int      // valid while running
	ep      *os.File // epfd, through which the runtime's poller tells run it has events
	running bool
	next    uint64
	socks   map[uint64]*socket
	// idle takes a ready socket to a reader that has finished its last
	// and waits for another (see serve); unbuffered.
	idle chan *socket
	// waiting counts the readers waiting on idle (at most idleReaders).
	waiting atomic.Int32
}

// add starts watching s and reports whether it does; the caller does not
// read s if so. A closed s is not watched: add reports false, and the
// reader, finding s closing (closeLocked), closes it.
func (w *watcher) add(s *socket) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false // the reader closes it (closing) or finds it closed
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.running {
		fd, ep, raw, err := openEpoll()
		if err != nil {
			return s.keepReading()
		}
		w.epfd, w.ep, w.running = fd, ep, true
		if w.idle == nil {
			w.idle = make(chan *socket) // set once, before any goroutine reads it
		}
		go w.run(ep, raw)
	}
	w.next++
	token := w.next
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return s.keepReading()
	}
	var ctlErr error
	err = raw.Control(func(fd uintptr) {
		ctlErr = syscall.EpollCtl(w.epfd, syscall.EPOLL_CTL_ADD, int(fd), armEvent(token))
	})
	if err != nil || ctlErr != nil {
		return s.keepReading()
	}
	if w.socks == nil {
		w.socks = make(map[uint64]*socket)
	}
	w.socks[token] = s
	s.watched, s.token = true, token
	return true
}

// armEvent is the event a watched socket is armed for: a datagram or an
// error queued (epoll reports errors unasked), once.
func armEvent(token uint64) *syscall.EpollEvent {
	return &syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLONESHOT, Fd: int32(token), Pad: int32(token >> 32)}
}

// rearm arms s again, once its reader has read it: if it has datagrams
// queued still, the next wait reports it again. A socket the watcher
// forgot (it is closing) is not armed: its descriptor may be gone. A
// socket that cannot be armed again is given a reader of its own (see
// giveBack): it would be read no more.
func (w *watcher) rearm(s *socket) {
	w.mu.Lock()
	if !w.running || w.socks[s.token] != s {
		w.mu.Unlock()
		return
	}
	raw, err := s.conn.SyscallConn()
	var ctlErr error
	if err == nil {
		err = raw.Control(func(fd uintptr) {
			ctlErr = syscall.EpollCtl(w.epfd, syscall.EPOLL_CTL_MOD, int(fd), armEvent(s.token))
		})
	}
	w.mu.Unlock()
	if err == nil && ctlErr != nil {
		w.giveBack(s)
	}
}

// giveBack stops watching s, which is not closing, and starts a reader of
// its own for it.
func (w *watcher) giveBack(s *socket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.watched {
		return
	}
	w.mu.Lock()
	delete(w.socks, s.token)
	if w.running {
		if raw, err := s.conn.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) { _ = syscall.EpollCtl(w.epfd, syscall.EPOLL_CTL_DEL, int(fd), nil) })
		}
	}
	w.mu.Unlock()
	s.watched = false
	s.keepReading()
	go s.read()
}

// keepReading has s's reader go on reading it (the watcher could not take
// it). The caller holds s.mu.
func (s *socket) keepReading() bool {
	s.handing.Store(false)
	_ = s.conn.SetReadDeadline(time.Time{})
	return false
}

// forget stops watching s, which is closing; the caller holds s.mu. Its
// descriptor leaves the epoll instance when it is closed.
func (w *watcher) forget(s *socket) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.socks, s.token)
}

// openEpoll opens the watcher's epoll instance, non-blocking and held by
// an os.File that the runtime's poller watches (an epoll instance is
// readable while it has events), so that the watcher waits for events
// as a reader waits for a datagram, parked, not in a blocking system
// call that holds a thread and hands its processor over at each wait.
func openEpoll() (int, *os.File, syscall.RawConn, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("resolver: epoll: %w", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return 0, nil, nil, fmt.Errorf("resolver: epoll: %w", err)
	}
	ep := os.NewFile(uintptr(fd), "epoll")
	raw, err := ep.SyscallConn()
	if err == nil {
		// A deadline can be set only on a file the poller watches.
		err = ep.SetReadDeadline(time.Time{})
	}
	if err != nil {
		_ = ep.Close()
		return 0, nil, nil, fmt.Errorf("resolver: epoll: %w", err)
	}
	return fd, ep, raw, nil
}

// watchEvents is how many ready sockets one wait of the watcher takes;
// epoll reports the others at the next wait, in turn.
const watchEvents = 64

// run waits for datagrams on the watched sockets and has each socket
// reported ready read (see serve), until a wait ends with no socket left.
// A wait that fails (other than by a signal, or at its deadline) pauses
// the watcher for a wait's length, so that an error that persists cannot
// make it spin.
func (w *watcher) run(ep *os.File, raw syscall.RawConn) {
	events := make([]syscall.EpollEvent, watchEvents)
	var ready []*socket
	for {
		n, err := waitEvents(ep, raw, events)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			n = 0
			time.Sleep(watchWait * time.Millisecond)
		}
		ready = ready[:0]
		w.mu.Lock()
		for _, ev := range events[:n] {
			if s, ok := w.socks[uint64(uint32(ev.Fd))|uint64(uint32(ev.Pad))<<32]; ok {
				ready = append(ready, s)
			}
		}
		if n == 0 && len(w.socks) == 0 {
			w.running = false
			w.socks = nil // a map does not shrink: the next run starts small
			_ = ep.Close()
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		for _, s := range ready {
			select {
			case w.idle <- s:
			default:
				go w.serve(s)
			}
		}
	}
}

// waitEvents waits up to watchWait for events on the epoll instance ep
// and takes them into events; it returns how many it took.
func waitEvents(ep *os.File, raw syscall.RawConn, events []syscall.EpollEvent) (int, error) {
	_ = ep.SetReadDeadline(time.Now().Add(watchWait * time.Millisecond))
	var n int
	var werr error
	err := raw.Read(func(fd uintptr) bool {
		for {
			n, werr = syscall.EpollWait(int(fd), events, 0)
			if !errors.Is(werr, syscall.EINTR) {
				break
			}
		}
		return n != 0 || werr != nil // nothing yet: the poller waits for the instance to be readable
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return 0, fmt.Errorf("resolver: wait for events: %w", err)
	}
	return max(n, 0), nil
}

// serveIdle is how long a reader the watcher started waits for another
// ready socket once it has read its last, before it ends: under load the
// readers live on, so that a datagram costs no new goroutine, nor the
// growth of a new one's stack to the depth a reply's handling reaches;
// and a burst that started many does not leave them all waiting long,
// each with its stack.
const serveIdle = 100 * time.Millisecond

// idleReaders is how many readers the watcher started may wait for a
// ready socket at a time; a reader that finds that many waiting ends
// instead. A reply's handling runs the lookup's continuation on the
// reader (the next questions of its check), which grows its stack to
// 16 or 32 KiB; a burst of ready sockets started a reader each, and
// without this bound they all waited serveIdle with that stack (at 500
// scans in flight in the service, 58 to 167 at a time). A few waiting
// take the steady flow; a burst beyond them starts readers, as it would
// anyway. Measured alternately with no bound (BENCHMARKS.md, "Fewer
// readers waiting"): stacks 19 against 25.5 KiB a request in flight in
// the service, CPU a scan the same within the runs' spread.
const idleReaders = 4

// serve reads s, which the watcher reported ready, arms it again, and
// then reads the ready sockets the watcher hands it, until none comes
// for serveIdle or idleReaders others wait already.
func (w *watcher) serve(s *socket) {
	var idle *time.Timer // made when the reader first waits: most end at once under a flood
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	for {
		s.drain()
		w.rearm(s)
		if w.waiting.Add(1) > idleReaders {
			w.waiting.Add(-1)
			return
		}
		if idle == nil {
			idle = time.NewTimer(serveIdle)
		} else {
			idle.Reset(serveIdle)
		}
		select {
		case s = <-w.idle:
			w.waiting.Add(-1)
		case <-idle.C:
			w.waiting.Add(-1)
			return
		}
	}
}

// drain handles up to drainBatch of the datagrams queued on s, and ICMP
// errors, without waiting, and has the kernel's count of the datagrams
// it dropped at s looked at (see noteDrops), with the most its buffer
// held meanwhile (peakOf).
func (s *socket) drain() {
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return
	}
	before, _ := memOf(raw)
	read := 0 // the datagrams read, in the kernel's accounting at the least (see noteDrops)
loop:
	for range drainBatch {
		buf := s.up.buffer()
		var n int
		var from syscall.Sockaddr
		var rerr error
		err := raw.Control(func(fd uintptr) {
			// MSG_TRUNC: n is the datagram's length, though the buffer
			// took only its start.
			n, from, rerr = syscall.Recvfrom(int(fd), *buf, syscall.MSG_DONTWAIT|syscall.MSG_TRUNC)
		})
		switch {
		case err != nil || errors.Is(rerr, syscall.EAGAIN): // closed, or nothing more queued
			s.up.putBuffer(buf)
			break loop
		case errors.Is(rerr, syscall.EINTR):
			s.up.putBuffer(buf)
			continue
		case icmpError(rerr):
			s.up.putBuffer(buf)
			s.icmp()
			continue
		case rerr != nil: // another socket error: reading it cleared it
			s.up.putBuffer(buf)
			continue
		}
		if !s.fromPeer(from) {
			s.up.putBuffer(buf)
			s.drop(dropWrongSource, nil)
			continue
		}
		read += n + datagramOverhead
		s.handle((*buf)[:min(n, len(*buf))])
		s.up.putBuffer(buf)
	}
	if after, ok := memOf(raw); ok {
		s.noteDrops(after, peakOf(before, after, read))
	}
}

// fromPeer reports whether sa, a datagram's source, is s's server: its
// address (unmapped), port and, for a scoped IPv6 server such as a
// link-local one, the scope ID (the interface), compared with the one
// the kernel gave for the peer at dial (socket.scope).
func (s *socket) fromPeer(sa syscall.Sockaddr) bool {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)) == s.peer
	case *syscall.SockaddrInet6:
		from := netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port))
		if s.peer.Addr().Zone() == "" {
			return from == s.peer
		}
		peer := netip.AddrPortFrom(s.peer.Addr().WithZone(""), s.peer.Port())
		return from == peer && a.ZoneId == s.scope
	}
	return false
}

// count returns how many sockets w watches.
func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.socks)
}

// icmpErrnos are the errors a connected UDP socket reports for an ICMP
// error about a datagram it sent (Linux: port, host or network
// unreachable, protocol unreachable, host down or isolated, a parameter
// problem, fragmentation needed, administratively prohibited): each is
// counted and taken as ICMP (socket.icmp), never as the server's reply.
var icmpErrnos = []syscall.Errno{
	syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
	syscall.ENOPROTOOPT, syscall.EHOSTDOWN, syscall.ENONET, syscall.EPROTO,
	syscall.EMSGSIZE, syscall.EACCES,
}

// acceptAll attaches to c a socket filter that takes every datagram:
// with a filter attached, the kernel checks a datagram's UDP checksum
// before it queues it, not when it is read. Without one, a datagram with
// a bad checksum fills the receive buffer as any other until it is read,
// and is then dropped unseen: a flood of them could keep a reply out and
// leave no trace the reader sees (the kernel's drop count, see
// socket.noteDrops, still says so). Best effort.
func acceptAll(c *net.UDPConn) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		//lint:ignore SA1019 golang.org/x/net/bpf would only assemble the one instruction; attaching it takes this setsockopt, which AttachLsf makes on every Linux port (386's socketcall included)
		_ = syscall.AttachLsf(int(fd), []syscall.SockFilter{{Code: syscall.BPF_RET | syscall.BPF_K, K: 0xffffffff}})
	})
}

// peerScope returns the scope ID of c's peer as the kernel holds it (the
// interface of a link-local IPv6 server), or 0.
func peerScope(c *net.UDPConn) uint32 {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	var id uint32
	_ = raw.Control(func(fd uintptr) {
		if sa, err := syscall.Getpeername(int(fd)); err == nil {
			if a, ok := sa.(*syscall.SockaddrInet6); ok {
				id = a.ZoneId
			}
		}
	})
	return id
}
