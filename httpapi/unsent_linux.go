package httpapi

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The Linux facilities the wait uses:
//   - SIOCOUTQNSD (since 2.6.38) gives the bytes of a TCP socket's send
//     queue not yet sent. Unlike SIOCOUTQ it leaves out the bytes sent
//     and waiting for their acknowledgement, which a client far away or
//     on a lossy link has in flight without being slow to read.
//   - TCP_NOTSENT_LOWAT (since 3.12): a TCP socket reports itself
//     writable only while fewer bytes than this are unsent. 0 restores
//     the system's default (net.ipv4.tcp_notsent_lowat).

// unsent returns the bytes c has written that are not yet sent (a peer
// that does not read closes its receive window once its buffer is full,
// and what follows stays unsent), or 0 when that cannot be told.
func unsent(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	_ = raw.Control(func(fd uintptr) { n = unsentFD(fd) })
	return n
}

// unsentFD is unsent for a descriptor. The kernel writes a C int, 32
// bits, and 32 bits are read: read as a Go int (IoctlGetInt), it would
// land in the high half on a big-endian 64-bit machine. An ioctl that
// fails counts as nothing unsent, so that a socket the kernel cannot
// tell about is answered rather than closed; it fails only on a socket
// that is not TCP, and waitSent waits only on one that took
// TCP_NOTSENT_LOWAT, which only TCP does.
func unsentFD(fd uintptr) int {
	n, err := unix.IoctlGetUint32(int(fd), unix.SIOCOUTQNSD)
	if err != nil {
		return 0
	}
	return int(int32(n))
}

// waitSent waits until nothing c has written is unsent, until the
// connection is over (the peer reset it: see pollWrite), or until
// deadline, and reports whether it was all sent; handled is false when
// it cannot wait that way (not a TCP socket, or the option refused), and
// the caller must look by itself. It waits parked in the runtime's
// poller, not by looking again and again: with TCP_NOTSENT_LOWAT at 1
// the socket turns writable only when its last unsent byte leaves. The
// option and c's write deadline are restored before it returns (the
// caller sets the deadline of what it writes next). c must not have
// shut its writing (CloseWrite): see pollWrite.
func waitSent(c net.Conn, deadline time.Time) (sent, handled bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	var set bool
	_ = raw.Control(func(fd uintptr) {
		set = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, 1) == nil
	})
	if !set {
		return false, false
	}
	defer func() {
		_ = raw.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, 0) })
		_ = c.SetWriteDeadline(time.Time{})
	}()
	if err := c.SetWriteDeadline(deadline); err != nil {
		return false, true
	}
	err = raw.Write(func(fd uintptr) bool {
		if sent = unsentFD(fd) == 0; sent {
			return true
		}
		if pollWrite(fd) {
			return true // over: nothing unsent will leave
		}
		sent = unsentFD(fd) == 0 // the queue may have emptied before it was armed
		return sent
	})
	return sent && err == nil, true
}

// pollWrite has the kernel wake the runtime's poller when fd turns
// writable, and reports whether the connection is over.
//
// It polls fd for POLLOUT without waiting, and the poll, finding the
// socket unwritable, marks it as wanting space. Without that mark the
// kernel sends no wake-up when the send queue empties (it marks a socket
// only when a poll or a write finds it full, and a previous answer that
// went into the queue whole never did), and the wait would last until
// its deadline.
//
// The connection is over when the poll reports a hang-up or an error:
// the peer reset it (as a peer does that closes with answers unread),
// and what is unsent will never leave, though SIOCOUTQNSD still counts
// it (the sequence numbers stay as they were). The reset wakes the
// poller too, so the wait ends then, not at its deadline. The poll
// speaks for the whole connection, also where several subflows carry it
// (multipath TCP) and one of them is reset while the others carry the
// answer. A peer that only half-closes (its FIN) may still read, and is
// not over. A socket shut both ways reports a hang-up while its peer
// may still read what is unsent, so waitSent is not for a connection
// whose writing the server has shut (the server shuts it only as it
// ends a connection, never before answering a request).
func pollWrite(fd uintptr) (over bool) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	n, err := unix.Ppoll(fds, &unix.Timespec{}, nil)
	return err == nil && n == 1 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}
