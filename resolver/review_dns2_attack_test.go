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
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// Attacks on 1ebc286: the watcher reads at most drainBatch datagrams
// per socket per wake-up, and checks a link-local server's interface by
// the datagram's scope ID against peerZone (zoneIndex of the peer's
// zone name).

// TestReview2WatcherNumericInterfaceName: a link-local resolver on an
// interface whose name is all digits (Linux allows "7", "0", ...; here
// the loopback of a network namespace of its own, renamed "7", index
// 1). Go names the peer's zone "7" (getpeername's scope ID 1, through
// its interface table), and zoneIndex reads "7" as an index first, so
// peerZone is 7, not 1: every datagram the server sends to a watched
// socket (scope ID 1) is dropped as wrong_source, and the real reply
// that contradicts a cached forgery is never compared. Go itself
// resolves a zone as a name first, then as a number.
func TestReview2WatcherNumericInterfaceName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux only")
	}
	if os.Getenv("REVIEW_DNS2_NETNS") == "" {
		if _, err := exec.LookPath("ip"); err != nil {
			t.Skip("needs ip(8)")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestReview2WatcherNumericInterfaceName$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "REVIEW_DNS2_NETNS=1")
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
	for _, args := range [][]string{{"link", "set", "lo", "name", "7"}, {"link", "set", "7", "up"}, {"-6", "addr", "add", "fe80::1/64", "dev", "7", "nodad"}} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %v: %s", args, out)
	}
	ifi, err := net.InterfaceByName("7")
	require.NoError(t, err)
	t.Logf("interface %q has index %d", ifi.Name, ifi.Index)
	pc, err := net.ListenPacket("udp6", "[fe80::1%7]:0")
	require.NoError(t, err)
	defer pc.Close()
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1, Servers: []string{pc.LocalAddr().String()}}
	resolver.SetTombstone(c, spoofTimeout)
	resolver.SetSocketBatch(c, 1) // the socket retires at once: watched when the lookup ends
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
				if eventually(func() bool { return cache.Stats().Entries == 1 && resolver.WatchedSockets(c) == 1 }) {
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

// TestReview2WatcherICMPErrorStarvesSocket: a flood at the ports of
// watched sockets the attacker knows (those of questions it had the
// client ask) no longer starves the victim's socket on its own: drain
// reads 16 datagrams of each flooded socket and turns to the victim's
// (TestReview2FloodAloneNoLongerStarves). But drain returns at the first
// read error that icmpError does not know (udp_watch_linux.go, "case
// rerr != nil: return"): ENOPROTOOPT from an ICMP "protocol
// unreachable", EMSGSIZE from "fragmentation needed", EHOSTDOWN, ENONET,
// EPROTO; for IPv6 EACCES, EMSGSIZE, EPROTO. The kernel reports a
// pending socket error before any queued datagram, so a forger who knows
// the victim's port (it forged the answer on it) and sends one such
// ICMP error per watcher round (a round is 16 junk datagrams per flooded
// socket: here 8 sockets, and some thousands of ICMP messages a second
// suffice) has every wake-up of the victim's socket read the error and
// return: 0 datagrams instead of 16. The real, contradicting reply stays
// queued until the tombstone ends, and the forgery stays cached; the
// errors are not counted either. With an error icmpError knows (port
// unreachable) drain goes on, and the reply is read. Needs root (a raw
// socket, and a real-time thread that spaces the ICMP messages as a link
// would). The attack is tried up to icmpTrials times and must fail every
// time (it succeeded in every trial here).
func TestReview2WatcherICMPErrorStarvesSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the watcher is Linux only")
	}
	if sysSendmmsg == 0 {
		t.Skip("sendmmsg: linux/amd64 and linux/arm64 only")
	}
	if fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP); err != nil {
		t.Skipf("a raw socket needs root: %v", err)
	} else {
		syscall.Close(fd)
	}
	const icmpTrials = 3
	for i := range icmpTrials {
		if kept, why := icmpTrial(t, 2); kept {
			t.Fatalf("trial %d: %s", i+1, why)
		}
	}
}

// icmpTrial runs the attack of TestReview2WatcherICMPErrorStarvesSocket
// once with ICMP destination unreachable code (0: no ICMP, the flood
// alone), and reports whether the forgery stayed cached, and why.
//
// The attacker has the client ask floodSockets questions of its own, so
// that as many sockets it knows are watched, and floods them all: a
// round of the watcher is then floodSockets×16 datagrams long, and the
// sockets' queues hold enough junk that the rounds stay that long while
// the flooding process waits for a CPU of this shared machine.
func icmpTrial(t *testing.T, code byte) (kept bool, why string) {
	const window = 2 * time.Second // tombstoneFor, as the Client has it
	const floodSockets = 8
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	resolver.SetSocketBatch(c, 1) // each query retires its socket: all are watched once their lookups end
	cache := resolver.NewCache(c, 0)

	type pending struct {
		q    *dns.Msg
		from net.Addr
	}
	var mu sync.Mutex
	var victim pending
	var flood []netip.AddrPort
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		defer mu.Unlock()
		switch dns.CanonicalName(q.Question[0].Name) {
		case "victim.example.":
			if victim.q != nil {
				s.send(t, answerA(q, "192.0.2.1"), from)
				return
			}
			victim = pending{q, from}
			f := answerA(q, "192.0.2.66") // the forger wins
			f.Answer[0].Header().Ttl = 3600
			s.send(t, f, from)
		default:
			flood = append(flood, from.(*net.UDPAddr).AddrPort())
			s.send(t, answerA(q, "192.0.2.9"), from)
		}
	})
	c.Servers = []string{srv.addr()}

	a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forger won the race")
	victimEnded := time.Now()
	for i := range floodSockets {
		a = cache.Lookup(t.Context(), fmt.Sprintf("flood%d.attacker.example", i), resolver.TypeA)
		require.Equal(t, []string{"192.0.2.9"}, addrsOf(a))
	}
	require.True(t, eventually(func() bool { return resolver.WatchedSockets(c) == floodSockets+1 }), "all sockets watched")

	mu.Lock()
	to := slices.Clone(flood)
	v := victim
	mu.Unlock()
	junk := make([]byte, 12)
	binary.BigEndian.PutUint16(junk, v.q.Id^0x8000) // no query carries it (but by chance)
	junk[2] = 0x80                                  // QR
	stopFlood := startMultiFlooder(t, srv.pc.(*net.UDPConn), to, junk)
	defer stopFlood()
	if code != 0 {
		// ICMP destination unreachable quoting the victim's query to the
		// server, at the victim's port.
		stopICMP := startICMPFlooder(t, icmpUnreach(code, v.from.(*net.UDPAddr).AddrPort(), srv.pc.LocalAddr().(*net.UDPAddr).AddrPort()))
		defer stopICMP()
	}
	base := dropsOf(c, "unmatched_id")
	require.True(t, eventually(func() bool { return dropsOf(c, "unmatched_id") > base+2000 }), "the flood reaches the watcher")
	time.Sleep(window / 8)

	sent := time.Now()
	require.Less(t, sent.Sub(victimEnded), window*3/4, "the real reply is sent inside the window")
	srv.send(t, answerA(v.q, "192.0.2.1"), v.from)
	for deadline := victimEnded.Add(window + time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cache.Stats().Invalidated > 0 {
			t.Logf("code %d: evicted %v after the real reply; %d junk datagrams dropped; icmp %d", code, time.Since(sent), dropsOf(c, "unmatched_id")-base, dropsOf(c, "icmp"))
			return false, ""
		}
	}
	a = cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	return true, fmt.Sprintf("the contradiction sent %v after the victim's lookup ended (window %v) was never read; the forgery %v is still served (%d junk datagrams read meanwhile; drops: %v)",
		sent.Sub(victimEnded).Round(time.Millisecond), window, addrsOf(a), dropsOf(c, "unmatched_id")-base, c.SpoofDrops())
}

// startMultiFlooder starts this test binary as TestReview2MultiFlooder,
// which sends junk to every address of to, in turn, from the socket of
// pc (a duplicate, its fd 3), until stopped (see startFlooder).
func startMultiFlooder(t *testing.T, pc *net.UDPConn, to []netip.AddrPort, junk []byte) (stop func()) {
	t.Helper()
	raw, err := pc.SyscallConn()
	require.NoError(t, err)
	dup := -1
	require.NoError(t, raw.Control(func(fd uintptr) { dup, err = syscall.Dup(int(fd)) }))
	require.NoError(t, err)
	defer syscall.Close(dup)
	var dst []string
	for _, a := range to {
		dst = append(dst, a.String())
	}
	env := append(os.Environ(), "REVIEW_DNS2_FLOOD_TO="+strings.Join(dst, ","), "REVIEW_DNS2_FLOOD_JUNK="+hex.EncodeToString(junk), "GOMAXPROCS=16")
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^TestReview2MultiFlooder$", "-test.count=1"},
		&syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2, uintptr(dup)}, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	require.NoError(t, err)
	return func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
}

// TestReview2MultiFlooder is the process of startMultiFlooder (skipped
// otherwise).
func TestReview2MultiFlooder(t *testing.T) {
	toS := os.Getenv("REVIEW_DNS2_FLOOD_TO")
	if toS == "" {
		t.Skip("the flooding process of startMultiFlooder")
	}
	junk, err := hex.DecodeString(os.Getenv("REVIEW_DNS2_FLOOD_JUNK"))
	require.NoError(t, err)
	var batches [][]mmsghdr
	for _, a := range strings.Split(toS, ",") {
		batches = append(batches, junkBatch(junk, netip.MustParseAddrPort(a), 256))
	}
	for i := range 32 {
		go func() {
			for j := i; ; j++ {
				msgs := batches[j%len(batches)]
				_, _, _ = syscall.Syscall6(sysSendmmsg, 3, uintptr(unsafe.Pointer(&msgs[0])), uintptr(len(msgs)), 0, 0, 0)
			}
		}()
	}
	time.Sleep(20 * time.Second) // killed long before (or with its parent)
}

// TestReview2FloodAloneNoLongerStarves is the control of
// TestReview2WatcherICMPErrorStarvesSocket: the same flood without ICMP
// errors (the fix holds), and with ICMP errors icmpError knows (port
// unreachable: drain reads on).
func TestReview2FloodAloneNoLongerStarves(t *testing.T) {
	if runtime.GOOS != "linux" || sysSendmmsg == 0 {
		t.Skip("linux/amd64 and linux/arm64 only")
	}
	if fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP); err != nil {
		t.Skipf("a raw socket needs root: %v", err)
	} else {
		syscall.Close(fd)
	}
	for _, code := range []byte{0, 3} {
		if kept, why := icmpTrial(t, code); kept {
			t.Errorf("code %d: %s", code, why)
		}
	}
}

// sysSchedSetscheduler is sched_setscheduler(2) on linux/amd64 and
// linux/arm64.
var sysSchedSetscheduler = map[string]uintptr{"amd64": 144, "arm64": 119}[runtime.GOARCH]

// icmpUnreach returns an ICMP destination unreachable message with code,
// quoting a UDP datagram from client to server (IPv4).
func icmpUnreach(code byte, client, server netip.AddrPort) []byte {
	b := make([]byte, 8+20+8)
	b[0], b[1] = 3, code
	ip := b[8:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], 20+8+12)
	ip[8], ip[9] = 64, syscall.IPPROTO_UDP
	c4, s4 := client.Addr().As4(), server.Addr().As4()
	copy(ip[12:], c4[:])
	copy(ip[16:], s4[:])
	udp := ip[20:]
	binary.BigEndian.PutUint16(udp[0:], client.Port())
	binary.BigEndian.PutUint16(udp[2:], server.Port())
	binary.BigEndian.PutUint16(udp[4:], 8+12)
	var sum uint32
	for i := 0; i < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	binary.BigEndian.PutUint16(b[2:], ^uint16(sum))
	return b
}

// startICMPFlooder starts this test binary as TestReview2ICMPFlooder,
// which sends msg over a raw ICMP socket to 127.0.0.1 until stopped.
func startICMPFlooder(t *testing.T, msg []byte) (stop func()) {
	t.Helper()
	env := append(os.Environ(), "REVIEW_DNS2_ICMP="+hex.EncodeToString(msg))
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^TestReview2ICMPFlooder$", "-test.count=1"},
		&syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	require.NoError(t, err)
	return func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
}

// TestReview2ICMPFlooder is the process of startICMPFlooder (skipped
// otherwise).
func TestReview2ICMPFlooder(t *testing.T) {
	msgS := os.Getenv("REVIEW_DNS2_ICMP")
	if msgS == "" {
		t.Skip("the flooding process of startICMPFlooder")
	}
	msg, err := hex.DecodeString(msgS)
	require.NoError(t, err)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
	require.NoError(t, err)
	// One message every icmpGap, evenly spaced as they come from a link
	// (the forger's); a real-time thread, so that the scheduler of this
	// shared two-core machine does not bunch them up.
	const icmpGap = 20 * time.Microsecond
	go func() {
		runtime.LockOSThread()
		prio := struct{ p int32 }{50}
		_, _, _ = syscall.RawSyscall(sysSchedSetscheduler, 0, 1 /* SCHED_FIFO */, uintptr(unsafe.Pointer(&prio)))
		to := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
		gap := syscall.NsecToTimespec(int64(icmpGap))
		for {
			_ = syscall.Sendto(fd, msg, 0, to)
			_ = syscall.Nanosleep(&gap, nil)
		}
	}()
	time.Sleep(20 * time.Second) // killed long before (or with its parent)
}
