package mtasts

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handshakeGoroutines counts the goroutines running handshake's literal.
func handshakeGoroutines() int {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	return strings.Count(string(buf[:n]), "mtasts.handshake.func1")
}

// TestHandshakeStallCanceled: a peer that accepts and never sends a
// byte (net.Pipe: nothing is read from the server end) and a ctx without
// a deadline that is canceled: getPolicy returns, and no handshake
// goroutine is left behind.
func TestHandshakeStallCanceled(t *testing.T) {
	// Handshakes of the tests before this one (it is not parallel) may
	// still be ending, later on a loaded machine: counted as before, one
	// that ended would hide the one started here.
	require.Eventually(t, func() bool { return handshakeGoroutines() == 0 }, 30*time.Second, time.Millisecond,
		"handshake goroutines of earlier tests never ended")
	before := 0
	client, server := net.Pipe()
	defer server.Close()
	go func() { // read and drop the ClientHello, never answer
		buf := make([]byte, 4096)
		for {
			if _, err := server.Read(buf); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan fetchResult, 1)
	go func() {
		done <- getPolicy(ctx, client, "mta-sts.stall.test", "https://mta-sts.stall.test/.well-known/mta-sts.txt", Options{})
	}()
	require.Eventually(t, func() bool { return handshakeGoroutines() > before }, 30*time.Second, time.Millisecond)
	cancel()
	res := <-done
	assert.NotEqual(t, Fetched, res.state)
	require.Eventually(t, func() bool { return handshakeGoroutines() == before }, 30*time.Second, time.Millisecond,
		"the handshake goroutine outlives getPolicy")
}

// TestHandshakeGarbagePeer: a peer that answers the ClientHello
// with garbage ends the handshake with an error, not a panic or a hang.
func TestHandshakeGarbagePeer(t *testing.T) {
	for _, reply := range []string{"\x16\x03\x03\xff\xff", "HTTP/1.1 200 OK\r\n\r\n", "\x15\x03\x03\x00\x02\x02\x28", ""} {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			buf := make([]byte, 4096)
			_, _ = server.Read(buf)
			_, _ = server.Write([]byte(reply))
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound on a hang
		res := getPolicy(ctx, client, "mta-sts.garbage.test", "https://mta-sts.garbage.test/.well-known/mta-sts.txt", Options{})
		cancel()
		assert.Equal(t, Unreachable, res.state, "%q", reply)
		assert.Equal(t, []Code{CodePolicyTLSFailed}, res.codes, "%q", reply)
	}
}
