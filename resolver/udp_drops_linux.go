//go:build linux && !386

package resolver

import (
	"syscall"
	"unsafe"
)

// The socket option that reads a socket's memory figures (SO_MEMINFO in
// <asm-generic/socket.h>, the value on every Linux port Go has but 386,
// which reaches getsockopt through socketcall), and the indexes among
// them (<linux/sock_diag.h>, SK_MEMINFO_VARS of them) of the bytes
// queued for reading, the receive buffer's size and the datagrams the
// kernel dropped at the socket.
const (
	soMemInfo       = 55
	skMemInfoRmem   = 0
	skMemInfoRcvbuf = 1
	skMemInfoDrops  = 8
	skMemInfoVars   = 9
)

// kernelTells: kernelMem reads the socket's figures here.
const kernelTells = true

// kernelMem returns what the kernel holds of the socket fd: the bytes
// queued for reading and the receive buffer's size (the kernel's
// accounting, each datagram's overhead included), and how many datagrams
// it dropped there (with the buffer full, or with a bad checksum, see
// acceptAll); ok is false when the kernel does not tell.
func kernelMem(fd uintptr) (m sockMem, ok bool) {
	var mem [skMemInfoVars]uint32
	size := uint32(unsafe.Sizeof(mem))
	_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.SOL_SOCKET, soMemInfo,
		uintptr(unsafe.Pointer(&mem[0])), uintptr(unsafe.Pointer(&size)), 0)
	if errno != 0 || size <= skMemInfoDrops*4 {
		return sockMem{}, false
	}
	return sockMem{queued: mem[skMemInfoRmem], rcvbuf: mem[skMemInfoRcvbuf], drops: mem[skMemInfoDrops]}, true
}
