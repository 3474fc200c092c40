package httpapi

import (
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListenKeepAliveOff: the service's listener accepts connections
// without TCP keep-alive probes (every state of a connection has its own
// timeout), sparing the accept loop the system calls that set them.
func TestListenKeepAliveOff(t *testing.T) {
	t.Parallel()
	ln, err := Listen(t.Context(), "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	c, err := ln.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	raw, err := c.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	var on int
	var serr error
	require.NoError(t, raw.Control(func(fd uintptr) {
		on, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	}))
	require.NoError(t, serr)
	assert.Zero(t, on, "SO_KEEPALIVE set on an accepted connection")
}
