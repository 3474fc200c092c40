//go:build !unix

package resolver_test

import (
	"errors"
	"testing"
)

// icmpForger sends forged ICMP errors; here (no Unix raw sockets) it
// never is made.
type icmpForger struct{}

// newICMPForger skips the test: forging ICMP needs a Unix raw socket.
func newICMPForger(t *testing.T) *icmpForger {
	t.Helper()
	t.Skip("forging ICMP needs a raw socket of a Unix system")
	return nil
}

// sendTo is never reached (newICMPForger skips).
func (f *icmpForger) sendTo([]byte, [4]byte) error {
	return errors.New("forging ICMP needs a raw socket of a Unix system")
}
