package httpapi

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mailauth/mailauth/internal/netnstest"
)

// TestWaitSent: waitSent waits until the peer has taken every unsent
// byte, reports false when its deadline comes first, and leaves the
// socket's TCP_NOTSENT_LOWAT at the system's default and its write
// deadline cleared, so that what is written next is neither held back
// nor cut off.
func TestWaitSent(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)

	sent, handled := waitSent(c, time.Now().Add(time.Second))
	require.True(t, handled)
	assert.True(t, sent, "nothing written: nothing unsent")

	fillSendQueue(t, c)
	require.Positive(t, unsent(c), "the peer does not read: bytes stay unsent")
	sent, handled = waitSent(c, time.Now().Add(200*time.Millisecond))
	require.True(t, handled)
	assert.False(t, sent, "the deadline came while bytes were unsent")
	assertRestored(t, c)

	go func() { _, _ = io.Copy(io.Discard, peer) }()
	sent, handled = waitSent(c, time.Now().Add(time.Minute))
	require.True(t, handled)
	assert.True(t, sent, "the peer read everything")
	assert.Zero(t, unsent(c))
	assertRestored(t, c)
	_, err := c.Write(make([]byte, 16<<10)) // the peer reads: no deadline is needed, and none is left
	assert.NoError(t, err, "a write after the wait goes through")
}

// assertRestored checks that c's TCP_NOTSENT_LOWAT is back at the
// system's default (0).
func assertRestored(t *testing.T, c net.Conn) {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	lowat, gerr := -1, error(nil)
	require.NoError(t, raw.Control(func(fd uintptr) {
		lowat, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT)
	}))
	require.NoError(t, gerr)
	assert.Zero(t, lowat, "TCP_NOTSENT_LOWAT restored")
}

// TestWaitSentWakesWithoutFullQueue: the answer before was written into
// the send queue whole (no write found the socket full, so the kernel
// had no reason yet to report space), and the peer reads it all 100 ms
// into the wait: the wait ends then, not at its deadline.
func TestWaitSentWakesWithoutFullQueue(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)
	for total := 0; unsent(c) < 8<<10 && total < 100<<10; {
		n, err := c.Write(make([]byte, 4<<10)) // well within the send buffer: never full
		require.NoError(t, err)
		total += n
		time.Sleep(5 * time.Millisecond)
	}
	require.Positive(t, unsent(c))
	read := make(chan struct{})
	go func() {
		<-read
		_, _ = io.Copy(io.Discard, peer)
	}()
	waited := make(chan bool, 1)
	go func() {
		sent, _ := waitSent(c, time.Now().Add(time.Minute))
		waited <- sent
	}()
	time.Sleep(100 * time.Millisecond)
	close(read)
	select {
	case sent := <-waited:
		assert.True(t, sent)
	case <-time.After(30 * time.Second):
		t.Fatal("the peer read everything, and the wait went on")
	}
}

// TestWaitSentEndsWhenPeerResets: a peer that resets the connection
// with answers unread (it closed without reading them) ends the wait at
// once, not at its deadline, though the bytes it never took still count
// as unsent: nothing more will leave, and the handler's connection goes.
func TestWaitSentEndsWhenPeerResets(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)
	fillSendQueue(t, c)
	waited := make(chan bool, 1)
	go func() {
		sent, handled := waitSent(c, time.Now().Add(10*time.Minute))
		assert.True(t, handled)
		waited <- sent
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, peer.(*net.TCPConn).SetLinger(0))
	require.NoError(t, peer.Close()) // a reset
	select {
	case sent := <-waited:
		assert.False(t, sent, "the peer took nothing")
	case <-time.After(time.Minute):
		t.Fatal("the peer reset the connection, and the wait went on")
	}
	assertRestored(t, c)

	c2, peer2 := tcpPair(t)
	fillSendQueue(t, c2)
	require.NoError(t, peer2.(*net.TCPConn).SetLinger(0))
	require.NoError(t, peer2.Close())
	eventually(t, "the reset to arrive", func() bool { return closed(c2) })
	sent, handled := waitSent(c2, time.Now().Add(10*time.Minute))
	require.True(t, handled)
	assert.False(t, sent, "reset before the wait began")
	assert.Positive(t, unsent(c2), "the unsent bytes still count: the poll, not the count, ends the wait")
}

// closed reports whether c's connection is over, as pollWrite tells it.
func closed(c net.Conn) bool {
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return false
	}
	var gone bool
	_ = raw.Control(func(fd uintptr) { gone = pollWrite(fd) })
	return gone
}

// TestUnsentCountsOnlyUnsent: unsent reports the bytes left in the send
// queue while the peer does not read (its receive window closed), and
// none once the peer has read them: what it counts is what was not sent,
// not what waits for an acknowledgement.
func TestUnsentCountsOnlyUnsent(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)
	assert.Zero(t, unsent(c))
	fillSendQueue(t, c)
	assert.Positive(t, unsent(c), "the peer does not read: bytes stay unsent")
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	eventually(t, "the queue to drain", func() bool { return unsent(c) == 0 })
}

// fillSendQueue writes to c until its send queue is full (a write blocks
// past a short deadline) with bytes in it unsent, as when its peer does
// not read, and clears the deadline. A write that times out before any
// byte is unsent (the writer held up past the deadline on a busy
// machine) does not end it.
func fillSendQueue(t *testing.T, c net.Conn) {
	t.Helper()
	chunk := make([]byte, 16<<10)
	for {
		require.NoError(t, c.SetWriteDeadline(time.Now().Add(100*time.Millisecond)))
		_, err := c.Write(chunk)
		if err != nil {
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
			if unsent(c) > 0 {
				break
			}
		}
	}
	require.NoError(t, c.SetWriteDeadline(time.Time{}))
}

// tcpPair returns the two ends of a TCP connection over loopback, closed
// when the test ends: c, the server's, with a 64 KiB send buffer as the
// listener gives each connection, and peer, the client's, with a 4 KiB
// receive buffer, so that what c writes and peer does not read soon
// stays unsent.
func tcpPair(t *testing.T) (c, peer net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	peer, err = net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { peer.Close() })
	require.NoError(t, peer.(*net.TCPConn).SetReadBuffer(4<<10))
	c, err = ln.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.(*net.TCPConn).SetWriteBuffer(connWriteBuffer))
	return c, peer
}

// TestWaitSentMultipathSubflowReset: a multipath TCP client (the
// service's listener accepts MPTCP, as Go's listeners do) whose first
// subflow is reset, before the wait or during it, and which reads on its
// second, gets the rest of its answer: the wait ends when the answer has
// left, not at the reset of one subflow. It runs in a network namespace
// of its own, where 127.0.0.2 on lo is a second path.
func TestWaitSentMultipathSubflowReset(t *testing.T) {
	if _, err := os.Stat("/proc/sys/net/mptcp/enabled"); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the kernel has no multipath TCP: %v", err)
	} else {
		require.NoError(t, err)
	}
	if !netnstest.Enter(t, [][]string{
		{"link", "set", "lo", "up"},
		{"mptcp", "limits", "set", "subflows", "4", "add_addr_accepted", "4"},
		{"mptcp", "endpoint", "add", "127.0.0.2", "dev", "lo", "subflow"},
	}) {
		return
	}
	for _, resetFirst := range []bool{true, false} {
		ln, err := Listen(context.Background(), "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close() // open until the end: the peer's second subflow joins through it
		var d net.Dialer
		d.SetMultipathTCP(true)
		peer, err := d.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer peer.Close()
		require.NoError(t, peer.(*net.TCPConn).SetReadBuffer(4<<10))
		c, err := ln.Accept()
		require.NoError(t, err)
		defer c.Close()
		mp, err := c.(*net.TCPConn).MultipathTCP()
		require.NoError(t, err)
		require.True(t, mp, "the service's listener accepts MPTCP")
		require.NoError(t, c.(*net.TCPConn).SetWriteBuffer(connWriteBuffer))

		// A byte each way establishes the connection fully; the peer's
		// path manager then opens its second subflow.
		_, err = peer.Write([]byte("x"))
		require.NoError(t, err)
		_, err = io.ReadFull(c, make([]byte, 1))
		require.NoError(t, err)
		_, err = c.Write([]byte("y"))
		require.NoError(t, err)
		_, err = io.ReadFull(peer, make([]byte, 1))
		require.NoError(t, err)
		server := ln.Addr().String()
		eventually(t, "a second subflow", func() bool {
			out, err := exec.Command("ss", "-tnH", "state", "established", "dst", server).CombinedOutput()
			return err == nil && strings.Count(string(out), "\n") >= 2
		})
		fillSendQueue(t, c)
		resetSubflow := func() { // the first subflow, the peer's end: it sends a reset
			out, err := exec.Command("ss", "-K", "-tn", "src", peer.LocalAddr().String(), "dst", server).CombinedOutput()
			require.NoError(t, err, "ss -K: %s", out)
		}

		waited := make(chan bool, 1)
		wait := func() {
			go func() {
				sent, handled := waitSent(c, time.Now().Add(10*time.Minute))
				assert.True(t, handled)
				waited <- sent
			}()
		}
		if resetFirst {
			resetSubflow()
			time.Sleep(50 * time.Millisecond)
			wait()
		} else {
			wait()
			time.Sleep(50 * time.Millisecond)
			resetSubflow()
		}
		time.Sleep(50 * time.Millisecond)
		go func() { _, _ = io.Copy(io.Discard, peer) }()
		select {
		case sent := <-waited:
			assert.True(t, sent, "reset first: %v: the peer reads on its second subflow", resetFirst)
		case <-time.After(time.Minute):
			t.Fatalf("reset first: %v: the peer read everything, and the wait went on", resetFirst)
		}
		assertRestored(t, c)
	}
}
