//go:build linux && !386

package resolver

import (
	"syscall"
	"unsafe"
)

// The socket option that reads a socket's memory figures (SO_MEMINFO in
// <asm-generic/socket.h>, the value on every Linux port Go has but 386,
// which reaches getsockopt through socketcall), and the index of the
// datagrams the kernel dropped at the socket among them (SK_MEMINFO_DROPS
// in <linux/sock_diag.h>, of SK_MEMINFO_VARS).
const (
	soMemInfo      = 55
	skMemInfoDrops = 8
	skMemInfoVars  = 9
)

// kernelDrops returns how many datagrams the kernel dropped at the socket
// fd: with its receive buffer full, or with a bad checksum (see
// acceptAll); ok is false when the kernel does not tell.
func kernelDrops(fd uintptr) (n uint32, ok bool) {
	var mem [skMemInfoVars]uint32
	size := uint32(unsafe.Sizeof(mem))
	_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.SOL_SOCKET, soMemInfo,
		uintptr(unsafe.Pointer(&mem[0])), uintptr(unsafe.Pointer(&size)), 0)
	if errno != 0 || size <= skMemInfoDrops*4 {
		return 0, false
	}
	return mem[skMemInfoDrops], true
}
