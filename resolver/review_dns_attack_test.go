//go:build linux

package resolver_test

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// Attacks on the change that reads retired sockets holding tombstones
// only from one shared watcher goroutine per pool (udp_watch_linux.go),
// that waits for datagrams with MSG_PEEK and reads them into shared
// buffers (udp_wait_linux.go), and keeps a socket's queries in a slice.

// TestReviewWatcherFloodStarvesLateContradiction: a forger wins the race
// for the victim's question (the forged answer is cached). Both the
// victim's socket and the socket of another question the attacker had
// the client ask are retired and hold tombstones only, so the pool's one
// watcher reads both. The attacker floods the other socket's port with
// junk (blind IDs, as any off-path forger who knows a port can): the
// watcher drains that socket until the kernel reports nothing more
// queued (socket.drain), which under a flood is never, so the real
// reply to the victim's query, which comes well inside its tombstone
// window, is never read: the victim's socket closes when its tombstone
// ends with the contradiction still queued, and the forgery stays
// cached. With a reader per socket (before the change) a flood at one
// port could not keep another socket's reply from being compared.
//
// Whether the flood outpaces the watcher on a shared two-core machine
// depends on scheduling; the attack is tried up to floodTrials times and
// must fail every time (it succeeded in most trials here).
func TestReviewWatcherFloodStarvesLateContradiction(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux only")
	}
	if sysSendmmsg == 0 {
		t.Skip("sendmmsg: linux/amd64 and linux/arm64 only")
	}
	const floodTrials = 4
	for i := range floodTrials {
		if kept, why := floodTrial(t); kept {
			t.Fatalf("trial %d: %s", i+1, why)
		}
	}
}

// floodTrial runs the attack of TestReviewWatcherFloodStarvesLateContradiction
// once, and reports whether the forgery stayed cached, and why.
func floodTrial(t *testing.T) (kept bool, why string) {
	const window = 2 * time.Second // tombstoneFor, as the Client has it
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	resolver.SetSocketBatch(c, 1) // each query retires its socket: both are watched once their lookups end
	cache := resolver.NewCache(c, 0)

	type pending struct {
		q    *dns.Msg
		from net.Addr
	}
	var mu sync.Mutex
	var victim, flood pending
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		defer mu.Unlock()
		switch dns.CanonicalName(q.Question[0].Name) {
		case "victim.example.":
			if victim.q != nil { // asked again once the forgery is evicted
				s.send(t, answerA(q, "192.0.2.1"), from)
				return
			}
			victim = pending{q, from}
			f := answerA(q, "192.0.2.66") // the forger wins (ID, case guessed)
			f.Answer[0].Header().Ttl = 3600
			s.send(t, f, from)
		case "flood.attacker.example.":
			flood = pending{q, from}
			s.send(t, answerA(q, "192.0.2.9"), from)
		}
	})
	c.Servers = []string{srv.addr()}

	a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forger won the race")
	victimEnded := time.Now()
	// The other question is asked later, so that its tombstone outlasts
	// the victim's.
	time.Sleep(window * 5 / 8)
	a = cache.Lookup(t.Context(), "flood.attacker.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.9"}, addrsOf(a))
	require.True(t, eventually(func() bool { return resolver.WatchedSockets(c) == 2 }), "both sockets watched")

	// The flood at the other socket's port, from the server's address
	// (sendmmsg, as a packet generator would), until well past the
	// victim's tombstone window.
	mu.Lock()
	to := flood.from.(*net.UDPAddr)
	junk := make([]byte, 12)
	binary.BigEndian.PutUint16(junk, flood.q.Id^0x8000) // no query carries it
	junk[2] = 0x80                                      // QR
	v := victim
	mu.Unlock()
	// The forger's packets come from another machine: here, from a
	// process of their own (this test binary again, see
	// TestReviewFlooder), which sends from the server's socket with
	// sendmmsg, so that the kernel does all the work of the flood.
	stopFlood := startFlooder(t, srv.pc.(*net.UDPConn), to.AddrPort(), junk)
	defer stopFlood()
	// The watcher is draining the flooded socket.
	base := dropsOf(c, "unmatched_id")
	require.True(t, eventually(func() bool { return dropsOf(c, "unmatched_id") > base+500 }), "the flood reaches the watcher")

	// The resolver's real reply to the victim's query, well inside its
	// tombstone window: it contradicts the cached forgery.
	sent := time.Now()
	require.Less(t, sent.Sub(victimEnded), window*9/10, "the real reply is sent inside the window")
	srv.send(t, answerA(v.q, "192.0.2.1"), v.from)

	for deadline := victimEnded.Add(window + time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cache.Stats().Invalidated > 0 {
			t.Logf("evicted %v after the real reply; %d junk datagrams dropped", time.Since(sent), dropsOf(c, "unmatched_id")-base)
			return false, ""
		}
	}
	a = cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	return true, fmt.Sprintf("the contradiction sent %v after the victim's lookup ended (window %v) was never compared; the forgery %v is still served from the cache",
		sent.Sub(victimEnded).Round(time.Millisecond), window, addrsOf(a))
}

// sysSendmmsg is sendmmsg(2) on linux/amd64 and linux/arm64.
var sysSendmmsg = map[string]uintptr{"amd64": 307, "arm64": 269}[runtime.GOARCH]

// mmsghdr is struct mmsghdr (64-bit Linux).
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
	_   [4]byte
}

// junkBatch returns n messages of b to an IPv4 address, for sendmmsg:
// the kernel does all the work of a flood, the Go side none per datagram.
func junkBatch(b []byte, to netip.AddrPort, n int) []mmsghdr {
	sa := &syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: to.Addr().As4()}
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], to.Port())
	iov := &syscall.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	msgs := make([]mmsghdr, n)
	for i := range msgs {
		msgs[i].hdr.Name = (*byte)(unsafe.Pointer(sa))
		msgs[i].hdr.Namelen = syscall.SizeofSockaddrInet4
		msgs[i].hdr.Iov = iov
		msgs[i].hdr.Iovlen = 1
	}
	return msgs
}

// startFlooder starts this test binary as TestReviewFlooder, which sends
// junk to `to` from the socket of pc (a duplicate, its fd 3) until
// stopped. The process is started with syscall.ForkExec, which leaves
// the socket non-blocking (os/exec would make it blocking, and the
// server's reader would then never see its socket closed).
func startFlooder(t *testing.T, pc *net.UDPConn, to netip.AddrPort, junk []byte) (stop func()) {
	t.Helper()
	raw, err := pc.SyscallConn()
	require.NoError(t, err)
	dup := -1
	require.NoError(t, raw.Control(func(fd uintptr) { dup, err = syscall.Dup(int(fd)) }))
	require.NoError(t, err)
	defer syscall.Close(dup)
	env := append(os.Environ(), "REVIEW_DNS_FLOOD_TO="+to.String(), "REVIEW_DNS_FLOOD_JUNK="+hex.EncodeToString(junk), "GOMAXPROCS=16")
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^TestReviewFlooder$", "-test.count=1"},
		&syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2, uintptr(dup)}, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	require.NoError(t, err)
	return func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
}

// TestReviewFlooder is the flooding process of startFlooder (skipped
// otherwise): sendmmsg of 1,024 datagrams at a time from fd 3, one
// thread per CPU, until it is killed.
func TestReviewFlooder(t *testing.T) {
	toS := os.Getenv("REVIEW_DNS_FLOOD_TO")
	if toS == "" {
		t.Skip("the flooding process of startFlooder")
	}
	to := netip.MustParseAddrPort(toS)
	junk, err := hex.DecodeString(os.Getenv("REVIEW_DNS_FLOOD_JUNK"))
	require.NoError(t, err)
	for range 32 {
		go func() {
			msgs := junkBatch(junk, to, 1024)
			for {
				_, _, _ = syscall.Syscall6(sysSendmmsg, 3, uintptr(unsafe.Pointer(&msgs[0])), uintptr(len(msgs)), 0, 0, 0)
			}
		}()
	}
	time.Sleep(20 * time.Second) // killed long before (or with its parent)
}

// TestReviewWatcherDropsLinkLocalServer: a link-local IPv6 resolver
// ("nameserver fe80::1%eth0" in resolv.conf, which SystemServers keeps
// with its zone so that it works). The socket's peer carries the zone;
// the watcher's source check (fromPeer) builds the source of each
// datagram without it, so every datagram from the server to a watched
// socket is dropped as wrong_source (and counted as a forgery). The
// one-shot forgery of TestOneShotForgeryEvictedByWatcher then stays
// cached: the real, contradicting reply is never compared. A socket read
// by its own reader (ReadFromUDPAddrPort keeps the zone) evicts it.
//
// It runs in a network namespace of its own (this test binary again),
// where lo carries fe80::1; it needs root and ip(8).
func TestReviewWatcherDropsLinkLocalServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux only")
	}
	if os.Getenv("REVIEW_DNS_NETNS") == "" {
		if _, err := exec.LookPath("ip"); err != nil {
			t.Skip("needs ip(8)")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestReviewWatcherDropsLinkLocalServer$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "REVIEW_DNS_NETNS=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("a network namespace needs root: %v", err)
		}
		t.Logf("in its own network namespace:\n%s", out)
		if err != nil {
			t.Fatalf("failed in its network namespace: %v", err)
		}
		return
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"-6", "addr", "add", "fe80::1/64", "dev", "lo", "nodad"}} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %v: %s", args, out)
	}
	for _, watched := range []bool{false, true} {
		t.Run(fmt.Sprintf("watched=%v", watched), func(t *testing.T) {
			linkLocalForgery(t, watched)
		})
	}
}

// linkLocalForgery runs the one-shot forgery against a server on
// [fe80::1%lo]: the real reply comes once the forgery is cached and,
// when watched, its socket is read by the watcher.
func linkLocalForgery(t *testing.T, watched bool) {
	pc, err := net.ListenPacket("udp6", "[fe80::1%lo]:0")
	require.NoError(t, err)
	defer pc.Close()
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1, Servers: []string{pc.LocalAddr().String()}}
	resolver.SetTombstone(c, spoofTimeout)
	if watched {
		resolver.SetSocketBatch(c, 1)
	}
	cache := resolver.NewCache(c, 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for asked := 0; ; asked++ {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := new(dns.Msg)
			if q.Unpack(buf[:n]) != nil {
				continue
			}
			send := func(m *dns.Msg) {
				b, _ := m.Pack()
				_, _ = pc.WriteTo(b, from)
			}
			if asked > 0 {
				send(answerA(q, "192.0.2.1"))
				continue
			}
			f := answerA(q, "192.0.2.66") // the forger wins
			f.Answer[0].Header().Ttl = 3600
			send(f)
			go func() {
				if eventually(func() bool { return cache.Stats().Entries == 1 && (!watched || resolver.WatchedSockets(c) == 1) }) {
					send(answerA(q, "192.0.2.1")) // the real reply, late
				}
			}()
		}
	}()
	defer func() { pc.Close(); <-done }()
	a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forger won the race")
	evicted := false
	for deadline := time.Now().Add(5 * time.Second); !evicted && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		evicted = cache.Stats().Invalidated > 0
	}
	if !evicted {
		t.Errorf("the server's contradicting reply was not compared (drops: %v): the forgery stays cached", c.SpoofDrops())
	}
}
