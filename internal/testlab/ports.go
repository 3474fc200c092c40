package testlab

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// pairTries bounds the ports ListenPair draws: each is free over one of
// UDP and TCP, and busy over the other only while another socket holds
// it, which a few draws outrun.
const pairTries = 50

// ListenPair listens on a free loopback UDP port and, when withTCP, on
// TCP at the same port, as a DNS server does. The UDP port is free, but
// its number may be in use over TCP (another test's connection, or a
// busy machine's): then another port is drawn, up to pairTries. Both
// close when t ends.
func ListenPair(t testing.TB, withTCP bool) (net.PacketConn, net.Listener) {
	t.Helper()
	for range pairTries {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		require.NoError(t, err)
		if !withTCP {
			t.Cleanup(func() { _ = pc.Close() })
			return pc, nil
		}
		l, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			t.Cleanup(func() { _ = pc.Close(); _ = l.Close() })
			return pc, l
		}
		_ = pc.Close()
	}
	require.FailNow(t, "no loopback port free over both UDP and TCP")
	return nil, nil
}
