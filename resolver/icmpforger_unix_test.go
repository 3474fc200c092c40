//go:build unix

package resolver_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// icmpForger sends forged ICMP errors through a raw socket.
type icmpForger struct{ fd int }

// newICMPForger opens a raw ICMP socket, or skips the test when the
// process may not (raw sockets need root or CAP_NET_RAW; CI runs as root).
func newICMPForger(t *testing.T) *icmpForger {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		t.Skipf("forging ICMP needs a raw socket (root or CAP_NET_RAW): %v", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	return &icmpForger{fd: fd}
}

// sendTo sends the ICMP message msg to the IPv4 address dst.
func (f *icmpForger) sendTo(msg []byte, dst [4]byte) error {
	return syscall.Sendto(f.fd, msg, 0, &syscall.SockaddrInet4{Addr: dst})
}
