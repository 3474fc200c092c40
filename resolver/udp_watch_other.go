//go:build !linux

package resolver

import (
	"net"
	"syscall"
)

// canWatch: sockets holding tombstones only keep their reader (see the
// Linux watcher).
const canWatch = false

// watcher is the Linux watcher's stand-in: it never watches.
type watcher struct{}

// add never watches s.
func (w *watcher) add(s *socket) bool { return false }

// forget has nothing to forget.
func (w *watcher) forget(s *socket) {}

// count is 0: nothing is watched.
func (w *watcher) count() int { return 0 }

// icmpErrnos are the errors a connected UDP socket reports for an ICMP
// error about a datagram it sent: port, host or network unreachable, and
// on the BSDs and macOS fragmentation needed, host down and a parameter
// problem (Windows reports none: Go turns ICMP reporting off there).
var icmpErrnos = []syscall.Errno{
	syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
	syscall.EMSGSIZE, syscall.EHOSTDOWN, syscall.ENOPROTOOPT,
}

// acceptAll attaches no filter (see the Linux version).
func acceptAll(*net.UDPConn) {}

// peerScope is 0: only the Linux watcher checks a source's scope.
func peerScope(*net.UDPConn) uint32 { return 0 }
