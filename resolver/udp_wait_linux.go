//go:build linux

package resolver

import (
	"errors"
	"fmt"
	"syscall"
)

// awaitDatagram waits until a datagram, or an ICMP error, is there to
// read on s, without a buffer: it peeks at the socket with an empty one
// (MSG_PEEK, which leaves the datagram queued for the read that follows).
// A pending ICMP error is returned as the read would return it (and is
// consumed, as the read would consume it); a closed socket returns an
// error that is net.ErrClosed.
func (s *socket) awaitDatagram() error {
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("resolver: socket: %w", err)
	}
	var peekErr error
	err = raw.Read(func(fd uintptr) bool {
		for {
			_, _, peekErr = syscall.Recvfrom(int(fd), nil, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if !errors.Is(peekErr, syscall.EINTR) {
				break
			}
		}
		return !errors.Is(peekErr, syscall.EAGAIN) // EAGAIN: nothing queued, wait
	})
	if err != nil {
		return fmt.Errorf("resolver: wait for a datagram: %w", err)
	}
	if peekErr != nil {
		return fmt.Errorf("resolver: wait for a datagram: %w", peekErr)
	}
	return nil
}
