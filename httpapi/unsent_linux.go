package httpapi

import (
	"net"
	"syscall"
	"unsafe"
)

// siocoutqnsd is Linux's SIOCOUTQNSD (since 2.6.38): the bytes of a TCP
// socket's send queue not yet sent. Unlike SIOCOUTQ it leaves out the
// bytes sent and waiting for their acknowledgement, which a client far
// away or on a lossy link has in flight without being slow to read.
const siocoutqnsd = 0x894B

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
	var n int32
	_ = raw.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, siocoutqnsd, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}
