//go:build linux

package resolver_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mailauth/mailauth/internal/netnstest"
	"github.com/mailauth/mailauth/resolver"
)

// Attacks on the pool's watcher (udp_watch_linux.go), which waits, from
// one goroutine, for datagrams on every socket of the pool, the retired
// ones whose queries are all tombstones included, and has each ready
// socket read: at most drainBatch datagrams per wake-up, reading past any
// socket error (those of icmpErrnos counted as ICMP), and checking each
// datagram's source against the socket's peer, for a link-local server
// its scope ID against the one the kernel gave the peer at dial
// (peerScope). In each, a forger has won the race for the victim's
// question and its answer is cached; the server's real reply, which
// contradicts it, comes while the victim's socket is watched, and must
// be read and compared so that the forgery is evicted.
//
// The attacker's own packets come from processes of their own: this
// test binary again, run as one of the helper tests below, which skip
// unless started so.

// TestWatcherFloodDoesNotStarveLateContradiction: the victim's socket and
// the socket of another question the attacker had the client ask (asked
// later, so that its tombstone outlasts the victim's) are retired and
// hold tombstones only, so the pool's one watcher reads both. The
// attacker floods the other socket's port with junk from the server's
// address (blind IDs, sendmmsg, as any off-path forger who knows a port
// can), and the server's real reply to the victim's query comes well
// inside its tombstone window. It must be read and compared, and the
// forgery evicted: the watcher reads at most drainBatch datagrams of the
// flooded socket per wake-up before it turns to the victim's.
//
// Whether the flood outpaces the watcher on a shared two-core machine
// depends on scheduling; the attack is tried floodTrials times and must
// fail every time.
func TestWatcherFloodDoesNotStarveLateContradiction(t *testing.T) {
	needFlood(t)
	const floodTrials = 4
	for i := range floodTrials {
		if kept, why := starveTrial(t, starveAttack{
			floodSockets: 1,
			askAfter:     100 * time.Millisecond,
			batch:        1024,
			reached:      500,
			settle:       250 * time.Millisecond,
			sendBy:       tombstoneWindow * 2 / 3,
		}); kept {
			t.Fatalf("trial %d: %s", i+1, why)
		}
	}
}

// TestWatcherICMPErrorDoesNotStarveSocket: the attacker floods the ports
// of 8 watched sockets it knows (those of questions it had the client
// ask), and sends ICMP "protocol unreachable" quoting the victim's query
// to the victim's port (it forged the answer on it), one every 20 µs as
// a link would space them. The kernel reports a pending socket error
// (here ENOPROTOOPT) before any queued datagram, so each wake-up of the
// victim's socket starts with one. The server's real reply must still be
// read inside the tombstone window and the forgery evicted: drain counts
// an ICMP-derived error as ICMP (icmpErrnos) and reads on past it, as
// past any other socket error. Needs root (a raw socket, and a real-time
// thread for the ICMP sender). The attack is tried icmpTrials times and
// must fail every time.
func TestWatcherICMPErrorDoesNotStarveSocket(t *testing.T) {
	needFlood(t)
	needRawSocket(t)
	const icmpTrials = 3
	for i := range icmpTrials {
		if kept, why := starveTrial(t, icmpStarve(2)); kept {
			t.Fatalf("trial %d: %s", i+1, why)
		}
	}
}

// TestWatcherFloodAndPortUnreachableDoNotStarve is the control of
// TestWatcherICMPErrorDoesNotStarveSocket: the same flood at 8 watched
// ports without ICMP errors, and with ICMP "port unreachable"
// (ECONNREFUSED) at the victim's port. In both the real reply must be
// read and the forgery evicted.
func TestWatcherFloodAndPortUnreachableDoNotStarve(t *testing.T) {
	needFlood(t)
	needRawSocket(t)
	for _, code := range []byte{0, 3} {
		if kept, why := starveTrial(t, icmpStarve(code)); kept {
			t.Errorf("code %d: %s", code, why)
		}
	}
}

// tombstoneWindow is how long a tombstone lasts in these trials (set
// with SetTombstone): six times the Client's default, so that a loaded
// machine (load 30 beside the tests) cannot push the real reply out of
// the window before it is sent. It does not weaken them: the attacks
// keep the watcher from the victim's socket for as long as they run,
// whatever the window.
const tombstoneWindow = 12 * time.Second

// starveAttack is one way of keeping the watcher from reading the
// victim's socket: a flood at the ports of watched sockets the attacker
// knows, and optionally ICMP errors at the victim's port.
type starveAttack struct {
	floodSockets int           // questions of its own the attacker has the client ask: their sockets are flooded
	askAfter     time.Duration // how long after the victim's lookup ends they are asked
	batch        int           // datagrams a sendmmsg call of the flooder sends to one socket
	reached      uint64        // junk datagrams the watcher must have dropped before the real reply is sent
	settle       time.Duration // how long the flood then runs before the real reply is sent
	sendBy       time.Duration // the real reply is sent within this of the victim's lookup's end
	icmpCode     byte          // ICMP destination unreachable code sent at the victim's port; 0: none
}

// icmpStarve is the attack of TestWatcherICMPErrorDoesNotStarveSocket
// with ICMP destination unreachable code (0: the flood alone). The
// attacker has the client ask 8 questions of its own and floods their
// sockets: a round of the watcher is then 8×drainBatch datagrams long,
// and the sockets' queues hold enough junk that the rounds stay that long
// while the flooding process waits for a CPU of a shared machine (some
// thousands of ICMP messages a second then suffice to meet every round).
func icmpStarve(code byte) starveAttack {
	return starveAttack{
		floodSockets: 8,
		batch:        256,
		reached:      2000,
		settle:       250 * time.Millisecond,
		sendBy:       tombstoneWindow * 2 / 3,
		icmpCode:     code,
	}
}

// starveTrial runs attack once, and reports whether the forgery stayed
// cached, and why.
func starveTrial(t *testing.T, attack starveAttack) (kept bool, why string) {
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1}
	resolver.SetSocketBatch(c, 1) // each query retires its socket: all are watched once their lookups end
	resolver.SetTombstone(c, tombstoneWindow)
	cache := resolver.NewCache(c, 0)

	type pending struct {
		q    *dns.Msg
		from net.Addr
	}
	var mu sync.Mutex
	var victim pending
	var flood []netip.AddrPort
	ids := map[uint16]bool{}
	srv := startRaw(t, func(s *rawServer, q *dns.Msg, from net.Addr) {
		mu.Lock()
		defer mu.Unlock()
		ids[q.Id] = true
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
		default:
			flood = append(flood, from.(*net.UDPAddr).AddrPort())
			s.send(t, answerA(q, "192.0.2.9"), from)
		}
	})
	c.Servers = []string{srv.addr()}

	a := cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	require.Equal(t, []string{"192.0.2.66"}, addrsOf(a), "the forger won the race")
	victimEnded := time.Now()
	time.Sleep(attack.askAfter)
	for i := range attack.floodSockets {
		a = cache.Lookup(t.Context(), fmt.Sprintf("flood%d.attacker.example", i), resolver.TypeA)
		require.Equal(t, []string{"192.0.2.9"}, addrsOf(a))
	}
	require.True(t, eventually(func() bool { return resolver.WatchedSockets(c) == attack.floodSockets+1 }), "all sockets watched")

	mu.Lock()
	to := slices.Clone(flood)
	v := victim
	junk := make([]byte, 12)
	id := v.q.Id ^ 0x8000
	for ids[id] { // no query carries it
		id++
	}
	binary.BigEndian.PutUint16(junk, id)
	junk[2] = 0x80 // QR
	mu.Unlock()
	stopFlood := startFlooder(t, srv.pc.(*net.UDPConn), to, junk, attack.batch)
	defer stopFlood()
	if attack.icmpCode != 0 {
		// ICMP destination unreachable quoting the victim's query to the
		// server, at the victim's port.
		stopICMP := startICMPFlooder(t, icmpUnreach(attack.icmpCode, v.from.(*net.UDPAddr).AddrPort(), srv.pc.LocalAddr().(*net.UDPAddr).AddrPort()))
		defer stopICMP()
	}
	base := dropsOf(c, "unmatched_id")
	require.True(t, eventually(func() bool { return dropsOf(c, "unmatched_id") > base+attack.reached }), "the flood reaches the watcher")
	time.Sleep(attack.settle)

	// The resolver's real reply to the victim's query, inside its
	// tombstone window: it contradicts the cached forgery.
	sent := time.Now()
	require.Less(t, sent.Sub(victimEnded), attack.sendBy, "the real reply is sent inside the window")
	srv.send(t, answerA(v.q, "192.0.2.1"), v.from)
	for deadline := victimEnded.Add(tombstoneWindow + time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cache.Stats().Invalidated > 0 {
			t.Logf("icmp code %d: evicted %v after the real reply; %d junk datagrams dropped; icmp %d",
				attack.icmpCode, time.Since(sent), dropsOf(c, "unmatched_id")-base, dropsOf(c, "icmp"))
			return false, ""
		}
	}
	a = cache.Lookup(t.Context(), "victim.example", resolver.TypeA)
	return true, fmt.Sprintf("the contradiction sent %v after the victim's lookup ended (window %v) was never compared; the forgery %v is still served (%d junk datagrams read meanwhile; drops: %v)",
		sent.Sub(victimEnded).Round(time.Millisecond), tombstoneWindow, addrsOf(a), dropsOf(c, "unmatched_id")-base, c.SpoofDrops())
}

// TestWatcherLinkLocalServer: a link-local IPv6 resolver ("nameserver
// fe80::1%eth0" in resolv.conf, which SystemServers keeps with its zone),
// here on [fe80::1%lo]. The one-shot forgery of
// TestOneShotForgeryEvictedByWatcher is made against it, with the real
// reply read by the socket's own reader and by the watcher. Both must
// compare it and evict the forgery: the watcher's source check
// (fromPeer) takes a datagram from the server, whose scope ID is that of
// lo, as the peer's (peerScope), not as from a wrong source.
//
// It runs in a network namespace of its own (see netnstest.Enter), where lo
// carries fe80::1; it needs root and ip(8).
func TestWatcherLinkLocalServer(t *testing.T) {
	if !netnstest.Enter(t, [][]string{{"link", "set", "lo", "up"}, {"-6", "addr", "add", "fe80::1/64", "dev", "lo", "nodad"}}) {
		return
	}
	for _, watched := range []bool{false, true} {
		t.Run(fmt.Sprintf("watched=%v", watched), func(t *testing.T) {
			linkLocalForgery(t, "[fe80::1%lo]:0", watched)
		})
	}
}

// TestWatcherNumericInterfaceName: a link-local resolver on an interface
// whose name is all digits (Linux allows "7", "0", ...): here the
// loopback of a network namespace of its own, renamed "7", whose index
// is 1. Go names the peer's zone "7"; read as a number, it would be
// index 7. The one-shot forgery is made against the server with the real
// reply read by the watcher, which must take it as the server's and
// evict the forgery: the peer's scope ID is the kernel's (getpeername at
// dial, peerScope), 1, never worked out from the zone's name.
func TestWatcherNumericInterfaceName(t *testing.T) {
	if !netnstest.Enter(t, [][]string{{"link", "set", "lo", "name", "7"}, {"link", "set", "7", "up"}, {"-6", "addr", "add", "fe80::1/64", "dev", "7", "nodad"}}) {
		return
	}
	ifi, err := net.InterfaceByName("7")
	require.NoError(t, err)
	t.Logf("interface %q has index %d", ifi.Name, ifi.Index)
	linkLocalForgery(t, "[fe80::1%7]:0", true)
}

// linkLocalForgery runs the one-shot forgery against a server listening
// on addr (link-local): the real reply comes once the forgery is cached
// and, when watched, its socket (retired after its one query) is read by
// the watcher. The forgery must be evicted within 5 s.
func linkLocalForgery(t *testing.T, addr string, watched bool) {
	pc, err := net.ListenPacket("udp6", addr)
	require.NoError(t, err)
	defer pc.Close()
	awaitReachable(t, pc)
	c := &resolver.Client{Timeout: spoofTimeout, Attempts: 1, Servers: []string{pc.LocalAddr().String()}}
	resolver.SetTombstone(c, spoofTimeout)
	if watched {
		resolver.SetSocketBatch(c, 1)
	} else {
		resolver.SetReaders(c, true)
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
	if !eventually(func() bool { return cache.Stats().Invalidated > 0 }) {
		t.Errorf("the server's contradicting reply was not compared (drops: %v): the forgery stays cached", c.SpoofDrops())
	}
}

// awaitReachable returns once a datagram sent to pc from a socket of
// its own arrives: a link-local address just added to an interface just
// brought up may not carry a datagram at once, and the forgery's one
// query would then be lost (the lookup timed out with nothing dropped,
// about one run in three under -race). The probe's socket is dialed
// again after every 10 datagrams lost: a socket connected before the
// address's local route was in place kept losing every datagram for the
// whole 10 s on a loaded machine (2 of 10 runs at load 15), while one
// dialed again carried the next.
func awaitReachable(t *testing.T, pc net.PacketConn) {
	t.Helper()
	var probe net.Conn
	defer func() {
		if probe != nil {
			probe.Close()
		}
	}()
	buf := make([]byte, 16)
	for i := range 200 {
		if i%10 == 0 {
			if probe != nil {
				probe.Close()
			}
			var err error
			probe, err = net.Dial("udp6", pc.LocalAddr().String())
			require.NoError(t, err)
		}
		_, _ = probe.Write([]byte("probe"))
		_ = pc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, _, err := pc.ReadFrom(buf)
		if err == nil && string(buf[:n]) == "probe" {
			require.NoError(t, pc.SetReadDeadline(time.Time{}))
			return
		}
	}
	require.FailNow(t, "the link-local server never received a datagram")
}

// floodEnv, set to 1, runs the tests that flood the client from helper
// processes (needFlood). They hold both cores of a small machine for
// seconds, one helper with a real-time thread, so a plain go test skips
// them; scripts/test sets it.
const floodEnv = "MAILAUTH_TEST_FLOOD"

// needFlood skips t unless floodEnv is 1, or in -short mode.
func needFlood(t *testing.T) {
	t.Helper()
	if os.Getenv(floodEnv) != "1" || testing.Short() {
		t.Skipf("floods from helper processes: set %s=1 (scripts/test does)", floodEnv)
	}
}

// needRawSocket skips t unless this process may open a raw ICMP socket
// (root).
func needRawSocket(t *testing.T) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
	if err != nil {
		t.Skipf("a raw socket needs root: %v", err)
	}
	syscall.Close(fd)
}

// junkBatch returns n messages of b to an IPv4 address, for sendmmsg:
// the kernel does all the work of a flood, the Go side none per datagram.
func junkBatch(b []byte, to netip.AddrPort, n int) []unix.Mmsghdr {
	sa := &unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: to.Addr().As4()}
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], to.Port())
	iov := &unix.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	msgs := make([]unix.Mmsghdr, n)
	for i := range msgs {
		msgs[i].Hdr.Name = (*byte)(unsafe.Pointer(sa))
		msgs[i].Hdr.Namelen = unix.SizeofSockaddrInet4
		msgs[i].Hdr.Iov = iov
		msgs[i].Hdr.SetIovlen(1)
	}
	return msgs
}

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

// The environment of the helper processes.
const (
	floodToEnv    = "WATCHER_ATTACK_FLOOD_TO"    // startFlooder: the addresses, comma-separated
	floodJunkEnv  = "WATCHER_ATTACK_FLOOD_JUNK"  // startFlooder: the datagram, in hex
	floodBatchEnv = "WATCHER_ATTACK_FLOOD_BATCH" // startFlooder: datagrams per sendmmsg
	icmpMsgEnv    = "WATCHER_ATTACK_ICMP"        // startICMPFlooder: the ICMP message, in hex
)

// startHelper starts this test binary as the helper test named test,
// with env added to its environment and, if fd is not -1, fd as its fd
// 3, until stop is called (or this process ends). It is started with
// syscall.ForkExec, which leaves a passed socket non-blocking (os/exec
// would make it blocking, and the server's reader would then never see
// its socket closed).
func startHelper(t *testing.T, test string, env []string, fd int) (stop func()) {
	t.Helper()
	files := []uintptr{0, 1, 2}
	if fd != -1 {
		files = append(files, uintptr(fd))
	}
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^" + test + "$", "-test.count=1"},
		&syscall.ProcAttr{Env: append(os.Environ(), env...), Files: files, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	require.NoError(t, err)
	return func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
}

// startFlooder starts TestWatcherAttackFlooder, which sends junk to every
// address of to, in turn, batch datagrams at a time, from the socket of
// pc (the server's: a duplicate, its fd 3), until stopped.
func startFlooder(t *testing.T, pc *net.UDPConn, to []netip.AddrPort, junk []byte, batch int) (stop func()) {
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
	env := []string{floodToEnv + "=" + strings.Join(dst, ","), floodJunkEnv + "=" + hex.EncodeToString(junk), floodBatchEnv + "=" + strconv.Itoa(batch), "GOMAXPROCS=16"}
	return startHelper(t, "TestWatcherAttackFlooder", env, dup)
}

// TestWatcherAttackFlooder is the flooding process of startFlooder
// (skipped otherwise): 32 goroutines each sendmmsg from fd 3 a batch of
// datagrams to one address after another, until it is killed (the
// kernel does all the work of the flood).
func TestWatcherAttackFlooder(t *testing.T) {
	toS := os.Getenv(floodToEnv)
	if toS == "" {
		t.Skip("the flooding process of startFlooder")
	}
	junk, err := hex.DecodeString(os.Getenv(floodJunkEnv))
	require.NoError(t, err)
	batch, err := strconv.Atoi(os.Getenv(floodBatchEnv))
	require.NoError(t, err)
	var to []netip.AddrPort
	for _, a := range strings.Split(toS, ",") {
		to = append(to, netip.MustParseAddrPort(a))
	}
	for i := range 32 {
		go func() {
			var batches [][]unix.Mmsghdr // its own: sendmmsg writes each message's length
			for _, a := range to {
				batches = append(batches, junkBatch(junk, a, batch))
			}
			for j := i; ; j++ {
				msgs := batches[j%len(batches)]
				_, _, _ = unix.Syscall6(unix.SYS_SENDMMSG, 3, uintptr(unsafe.Pointer(&msgs[0])), uintptr(len(msgs)), 0, 0, 0)
			}
		}()
	}
	time.Sleep(20 * time.Second) // killed long before (or with its parent)
}

// startICMPFlooder starts TestWatcherAttackICMPFlooder, which sends msg
// over a raw ICMP socket to 127.0.0.1 until stopped.
func startICMPFlooder(t *testing.T, msg []byte) (stop func()) {
	t.Helper()
	return startHelper(t, "TestWatcherAttackICMPFlooder", []string{icmpMsgEnv + "=" + hex.EncodeToString(msg)}, -1)
}

// TestWatcherAttackICMPFlooder is the process of startICMPFlooder
// (skipped otherwise).
func TestWatcherAttackICMPFlooder(t *testing.T) {
	msgS := os.Getenv(icmpMsgEnv)
	if msgS == "" {
		t.Skip("the flooding process of startICMPFlooder")
	}
	msg, err := hex.DecodeString(msgS)
	require.NoError(t, err)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
	require.NoError(t, err)
	// One message every icmpGap, evenly spaced as they come from a link
	// (the forger's); a real-time thread, so that the scheduler of a
	// shared two-core machine does not bunch them up.
	const icmpGap = 20 * time.Microsecond
	go func() {
		runtime.LockOSThread()
		_ = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 50}, 0)
		to := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
		gap := syscall.NsecToTimespec(int64(icmpGap))
		for {
			_ = syscall.Sendto(fd, msg, 0, to)
			_ = syscall.Nanosleep(&gap, nil)
		}
	}()
	time.Sleep(20 * time.Second) // killed long before (or with its parent)
}
