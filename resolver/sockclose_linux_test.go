package resolver_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// socketsTo counts this process's UDP sockets connected to port on
// 127.0.0.1: the inodes of /proc/self/fd that /proc/net/udp lists with
// that remote port.
func socketsTo(port int) (int, error) {
	mine := map[string]bool{}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	f, err := os.Open("/proc/net/udp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	want := fmt.Sprintf("0100007F:%04X", port)
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[2] == want && mine[fields[9]] {
			n++
		}
	}
	return n, sc.Err()
}

// TestClosedSocketsLeaveNoDescriptor: a socket closed while its reader
// waits is closed by that reader (closeLocked wakes it rather than wait
// for it), whichever way it ends: retired after its batch and its
// tombstones (read by its reader, or by the watcher), or idle. None is
// left open.
//
// Not parallel: the collector is off while it runs, so that no finalizer
// closes a descriptor the code left open.
func TestClosedSocketsLeaveNoDescriptor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		s.send(t, answerA(q, "192.0.2.1"), from)
	})
	_, p, err := net.SplitHostPort(srv.addr())
	require.NoError(t, err)
	port, err := strconv.Atoi(p)
	require.NoError(t, err)
	for _, tc := range []struct {
		batch   int
		readers bool
	}{{1, false}, {3, false}, {0, false}, {1, true}, {3, true}, {0, true}} {
		t.Run(fmt.Sprintf("batch=%d,readers=%v", tc.batch, tc.readers), func(t *testing.T) {
			c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: 5 * time.Second, Attempts: 1}
			resolver.SetTombstone(c, 100*time.Millisecond)
			resolver.SetReaders(c, tc.readers)
			if tc.batch > 0 {
				resolver.SetSocketBatch(c, tc.batch)
			}
			var wg sync.WaitGroup
			for i := range 60 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := c.Lookup(t.Context(), fmt.Sprintf("q%d.example.test", i), resolver.TypeA)
					assert.Equal(t, resolver.Found, a.Outcome, show(a))
				}()
			}
			wg.Wait()
			// Retired sockets close after their tombstones (100 ms); a
			// slot's socket that did not carry its batch closes after a
			// second idle.
			assert.EventuallyWithT(t, func(c *assert.CollectT) {
				n, err := socketsTo(port)
				assert.NoError(c, err)
				assert.Zero(c, n, "sockets to the server still open")
			}, 30*time.Second, 20*time.Millisecond, "every socket to the server closed")
		})
	}
}

// TestQueriesInFlightHoldNoReader: the watcher reads every socket, so 64
// queries in flight, each on a socket of its own (a batch of one), hold
// no reader goroutine; with a reader per socket (the control) they hold
// 64. The server never answers; the lookups end when the test cancels.
func TestQueriesInFlightHoldNoReader(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	const queries = 64
	for _, readers := range []bool{false, true} {
		t.Run(fmt.Sprintf("readers=%v", readers), func(t *testing.T) {
			c := &resolver.Client{Servers: []string{pc.LocalAddr().String()}, Timeout: time.Minute, Attempts: 1}
			resolver.SetSocketBatch(c, 1)
			resolver.SetReaders(c, readers)
			ctx, cancel := context.WithCancel(t.Context())
			var ended sync.WaitGroup
			for i := range queries {
				ended.Add(1)
				c.Start(ctx, fmt.Sprintf("q%d.example.test", i), resolver.TypeA, func(resolver.Answer) { ended.Done() })
			}
			want, watched := 0, queries
			if readers {
				want, watched = queries, 0
			}
			assert.EventuallyWithT(t, func(c *assert.CollectT) {
				assert.Equal(c, want, goroutinesIn("resolver.(*socket).read("), "reader goroutines")
			}, 30*time.Second, 5*time.Millisecond)
			assert.Equal(t, watched, resolver.WatchedSockets(c), "sockets the watcher reads")
			cancel()
			ended.Wait()
		})
	}
}

// goroutinesIn counts the goroutines whose stack holds fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 4<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}
