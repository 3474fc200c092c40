// Package testport picks the ports of the daemons tests start (Unbound,
// NSD, Knot, PostgreSQL, Redis, nginx, `mailauth serve`) and of addresses
// where nothing may listen.
//
// A port for a daemon is picked some time before the daemon binds it.
// One from the kernel's ephemeral range (what a bind to port 0 returns)
// may be taken in between by any socket the machine opens on port 0 and
// by any outgoing connection: on a busy test machine hundreds of the DNS
// client's UDP sockets open and close a second, and a daemon whose port
// one took exits with "address already in use". Ports below the
// ephemeral range are never handed out that way: only another explicit
// pick can take one, drawn at random from thousands.
package testport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

const (
	// lowest is the lowest port drawn: the ports below it are where
	// system services listen (PostgreSQL's 5432, Redis's 6379, ...).
	lowest = 10000
	// tries bounds the ports drawn before Daemon gives up: each is free
	// unless another test or a service holds it.
	tries = 100
	// rangeFile holds the ephemeral port range on Linux.
	rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"
)

// EphemeralRange returns the kernel's ephemeral port range, from which
// binds to port 0 and outgoing connections take their ports (Linux's
// default, 32768–60999, where it cannot be read).
func EphemeralRange() (lo, hi uint16) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile(rangeFile)
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	a, err1 := strconv.ParseUint(f[0], 10, 16)
	z, err2 := strconv.ParseUint(f[1], 10, 16)
	if err1 != nil || err2 != nil || a == 0 || a > z {
		return lo, hi
	}
	return uint16(a), uint16(z)
}

// Daemon returns a port below the ephemeral range that was free over TCP
// and over UDP on every one of hosts (127.0.0.1 when none) a moment ago.
// When the range starts too low to leave room below it, the port is one
// the kernel hands out for port 0.
func Daemon(tb testing.TB, hosts ...string) int {
	tb.Helper()
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1"}
	}
	lo, _ := EphemeralRange()
	for range tries {
		port := 0
		if int(lo) > lowest+1000 {
			port = lowest + rand.IntN(int(lo)-lowest)
		}
		if port, ok := freeOn(port, hosts); ok {
			return port
		}
	}
	tb.Fatalf("testport: no port free over TCP and UDP on %v in %d draws", hosts, tries)
	return 0
}

// freeOn reports whether port is free over TCP and UDP on every one of
// hosts, by binding each and closing them; port 0 takes the port the
// kernel gives the first bind.
func freeOn(port int, hosts []string) (int, bool) {
	var closers []interface{ Close() error }
	defer func() {
		for _, c := range closers {
			_ = c.Close()
		}
	}()
	for _, h := range hosts {
		l, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
		if err != nil {
			return 0, false
		}
		closers = append(closers, l)
		port = l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", net.JoinHostPort(h, strconv.Itoa(port)))
		if err != nil {
			return 0, false
		}
		closers = append(closers, u)
	}
	return port, true
}
