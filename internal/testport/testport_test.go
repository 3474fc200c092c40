package testport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDaemonBelowEphemeral: the port is below the ephemeral range (where
// no bind to port 0 or outgoing connection can take it) and free over TCP
// and UDP on each host asked for.
func TestDaemonBelowEphemeral(t *testing.T) {
	lo, hi := EphemeralRange()
	require.Less(t, lo, hi)
	for range 20 {
		port := Daemon(t, "127.0.0.1", "127.0.0.2")
		if int(lo) > lowest+1000 {
			require.GreaterOrEqual(t, port, lowest)
			require.Less(t, port, int(lo))
		}
		for _, h := range []string{"127.0.0.1", "127.0.0.2"} {
			addr := net.JoinHostPort(h, strconv.Itoa(port))
			l, err := net.Listen("tcp", addr)
			require.NoError(t, err, "TCP %s", addr)
			u, err := net.ListenPacket("udp", addr)
			require.NoError(t, err, "UDP %s", addr)
			_ = l.Close()
			_ = u.Close()
		}
	}
}

// TestDaemonSkipsBusyPorts: a port held over UDP alone is never returned
// (a daemon serving DNS binds both).
func TestDaemonSkipsBusyPorts(t *testing.T) {
	port := Daemon(t)
	u, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.NoError(t, err)
	defer u.Close()
	_, ok := freeOn(port, []string{"127.0.0.1"})
	require.False(t, ok, "a port busy over UDP counted as free")
	_, ok = freeOn(port, []string{"127.0.0.2"})
	require.True(t, ok, "the same port on another address is free")
}
