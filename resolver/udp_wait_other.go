//go:build !linux

package resolver

// awaitDatagram returns at once: the read that follows waits, holding
// its buffer (awaitDatagram on Linux waits without one).
func (s *socket) awaitDatagram() error { return nil }
