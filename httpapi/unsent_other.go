//go:build !linux

package httpapi

import "net"

// unsent cannot tell a socket's send queue outside Linux: 0, so that
// pace never waits there (the write deadlines still apply).
func unsent(net.Conn) int { return 0 }
