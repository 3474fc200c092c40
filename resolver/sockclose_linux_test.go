package resolver_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
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
	for _, batch := range []int{1, 3, 0} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			c := &resolver.Client{Servers: []string{srv.addr()}, Timeout: 5 * time.Second, Attempts: 1}
			resolver.SetTombstone(c, 100*time.Millisecond)
			if batch > 0 {
				resolver.SetSocketBatch(c, batch)
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
