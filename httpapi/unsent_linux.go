package httpapi

import (
	"net"
	"syscall"
	"unsafe"
)

// siocoutq is Linux's SIOCOUTQ (= TIOCOUTQ): the bytes of a TCP socket's
// send queue not yet acknowledged by the peer.
const siocoutq = 0x5411

// unsent returns the bytes c has written that the peer has not yet
// acknowledged (a peer that does not read stops acknowledging once its
// receive buffer is full), or 0 when that cannot be told.
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
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, siocoutq, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}
