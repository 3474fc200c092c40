//go:build !linux

package httpapi

import (
	"net"
	"time"
)

// unsent cannot tell a socket's send queue outside Linux: 0, so that
// pace never waits there (the write deadlines still apply).
func unsent(net.Conn) int { return 0 }

// waitSent cannot wait for a socket's send queue outside Linux.
func waitSent(net.Conn, time.Time) (sent, handled bool) { return false, false }
