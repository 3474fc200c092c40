package main

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// procUDP is /proc/net/udp as Linux prints it: the resolver's socket on
// 127.0.0.1:53 (0x35), a service socket connected to it, an unconnected
// one on 0.0.0.0, one connected elsewhere, and one on another address.
const procUDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  100: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1001 2 0000000000000000 0
  101: 0100007F:8A3C 0100007F:0035 01 00000000:00000000 00:00000000 00000000     0        0 1002 2 0000000000000000 0
  102: 00000000:9C40 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1003 2 0000000000000000 0
  103: 0100007F:9C41 0200007F:0035 01 00000000:00000000 00:00000000 00000000     0        0 1004 2 0000000000000000 0
  104: 0A00000A:9C42 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1005 2 0000000000000000 0
`

// procUDP6 is /proc/net/udp6 with a socket on ::ffff:127.0.0.1 connected
// to the resolver, and one on ::1.
const procUDP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  200: 0000000000000000FFFF00000100007F:A000 0000000000000000FFFF00000100007F:0035 01 00000000:00000000 00:00000000 00000000     0        0 2001 2 0000000000000000 0
  201: 00000000000000000000000001000000:A001 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2002 2 0000000000000000 0
`

func TestParseProcUDP(t *testing.T) {
	got := parseProcUDP([]byte(procUDP))
	require.Len(t, got, 5)
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.1:53"), got[0].Local)
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.1:35388"), got[1].Local)
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.1:53"), got[1].Remote)
	assert.Equal(t, netip.MustParseAddrPort("0.0.0.0:40000"), got[2].Local)
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.2:53"), got[3].Remote)
	assert.Equal(t, netip.MustParseAddrPort("10.0.0.10:40002"), got[4].Local)

	got = parseProcUDP([]byte(procUDP6))
	require.Len(t, got, 2)
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.1:40960"), got[0].Local, "IPv4-mapped addresses are read as IPv4")
	assert.Equal(t, netip.MustParseAddrPort("127.0.0.1:53"), got[0].Remote)
	assert.Equal(t, netip.MustParseAddrPort("[::1]:40961"), got[1].Local)

	assert.Empty(t, parseProcUDP([]byte("  1: zz:0035 00000000:0000\n  2: 0100007F:35 00000000:0000\n  3: 0100007F\n")))
}

// FuzzParseProcUDP: any text parses without a panic, and every socket it
// yields is an address and port written in the line it came from.
func FuzzParseProcUDP(f *testing.F) {
	f.Add([]byte(procUDP))
	f.Add([]byte(procUDP6))
	f.Add([]byte("  0: 0100007F:0035 0100007F:0035\n"))
	f.Add([]byte(": :"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range parseProcUDP(b) {
			require.True(t, s.Local.IsValid())
			require.True(t, s.Remote.IsValid())
		}
	})
}

func TestLivePortsFilter(t *testing.T) {
	// livePorts reads the real /proc; its filter is checked on the
	// parsed sample through the same rule.
	resolverAddr := netip.MustParseAddrPort("127.0.0.1:53")
	var live []uint16
	for _, s := range parseProcUDP([]byte(procUDP)) {
		if liveSocket(s, resolverAddr) {
			live = append(live, s.Local.Port())
		}
	}
	assert.Equal(t, []uint16{35388, 40000}, live, "the socket connected to the resolver and the unconnected one; not the resolver's own, not one connected elsewhere, not one on another address")
}

func TestICMPUnreachable(t *testing.T) {
	svc, res := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddrPort("127.0.0.1:5353")
	b := icmpUnreachable(svc, res, 40000)
	require.Len(t, b, 20+8+28)
	assert.Equal(t, byte(syscall.IPPROTO_ICMP), b[9])
	icmp := b[20:]
	assert.Equal(t, []byte{3, 3}, icmp[:2], "port unreachable")
	assert.Equal(t, uint16(0), checksum(icmp), "a valid ICMP checksum sums to zero")
	q := icmp[8:]
	assert.Equal(t, byte(syscall.IPPROTO_UDP), q[9])
	assert.Equal(t, svc.As4(), [4]byte(q[12:16]), "the quoted query left the service")
	assert.Equal(t, res.Addr().As4(), [4]byte(q[16:20]), "for the resolver")
	assert.Equal(t, uint16(40000), binary.BigEndian.Uint16(q[20:]))
	assert.Equal(t, uint16(5353), binary.BigEndian.Uint16(q[22:]))

	setICMPPort(b, 32768)
	assert.Equal(t, uint16(32768), binary.BigEndian.Uint16(q[20:]))
	assert.Equal(t, uint16(0), checksum(icmp), "the checksum follows the port")
}

func TestForgedDatagrams(t *testing.T) {
	svc, res := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddrPort("127.0.0.1:5353")

	u := udpFrom(svc, res, undecodable())
	setUDP(u, 40000, 0xBEEF)
	assert.Equal(t, uint16(5353), binary.BigEndian.Uint16(u[20:]), "from the resolver's port")
	assert.Equal(t, uint16(40000), binary.BigEndian.Uint16(u[22:]))
	payload := u[28:]
	assert.Equal(t, uint16(0xBEEF), binary.BigEndian.Uint16(payload))
	assert.Error(t, new(dns.Msg).Unpack(payload), "the undecodable datagram does not decode")

	b, err := forgedReply("_dmarc.SP1-s.example.com", dns.TypeTXT, dns.RcodeSuccess, "v=DMARC1; p=none")
	require.NoError(t, err)
	m := new(dns.Msg)
	require.NoError(t, m.Unpack(b))
	assert.True(t, m.Response)
	require.Len(t, m.Question, 1)
	assert.Equal(t, "_dmarc.sp1-s.example.com.", m.Question[0].Name)
	require.Len(t, m.Answer, 1)
	assert.Equal(t, []string{"v=DMARC1; p=none"}, m.Answer[0].(*dns.TXT).Txt)

	refused := forgedFor(attackRefused, "sp2-s.example.com")
	require.Len(t, refused, 3)
	for _, r := range refused {
		require.NoError(t, m.Unpack(r))
		assert.Equal(t, dns.RcodeRefused, m.Rcode)
		assert.Empty(t, m.Answer)
	}
	forged := forgedFor(attackForge, "sp2-s.example.com")
	require.Len(t, forged, 2)
	require.NoError(t, m.Unpack(forged[0]))
	assert.Equal(t, []string{"v=spf1 +all"}, m.Answer[0].(*dns.TXT).Txt)
}

func TestVerdictDiff(t *testing.T) {
	body := func(dmarc string) []byte {
		return []byte(`{"domain":"sp1-s.example.com","grade":"B","score":88,"checks":[` +
			`{"id":"spf","status":"pass","severity":"info","diagnostics":{"spfRecordCount":1}},` +
			`{"id":"dmarc","status":"` + dmarc + `","severity":"info","diagnostics":{"policyDomain":"sp1-s.example.com"},"summary":{"en":"DMARC ` + dmarc + ` for sp1-s.example.com"}}]}`)
	}
	base, err := parseVerdict(body("pass"), "sp1-s.example.com")
	require.NoError(t, err)
	other, err := parseVerdict([]byte(strings.ReplaceAll(string(body("pass")), "sp1-s", "sp7-s")), "sp7-s.example.com")
	require.NoError(t, err)
	assert.Empty(t, other.diff(base), "another copy of the domain has the same verdict")
	changed, err := parseVerdict(body("warn"), "sp1-s.example.com")
	require.NoError(t, err)
	assert.Equal(t, []string{"dmarc: pass/info -> warn/info (DMARC warn for DOMAIN)"}, changed.diff(base))
	retold := base
	retold.Texts = map[string]string{"spf": "", "dmarc": "another text"}
	assert.Equal(t, []string{"dmarc: pass/info, another text (another text)"}, retold.diff(base), "a text that changed is a change")
	assert.Equal(t, "grade B 88: dmarc pass/info spf pass/info", base.short())
	_, err = parseVerdict([]byte("{"), "x")
	assert.Error(t, err)
}

func TestDropsSince(t *testing.T) {
	a := map[string]uint64{"icmp": 5, "unmatched_id": 10}
	b := map[string]uint64{"icmp": 5, "unmatched_id": 15, "wrong_case": 2}
	assert.Equal(t, map[string]uint64{"unmatched_id": 5, "wrong_case": 2}, dropsSince(a, b))
	assert.Nil(t, dropsSince(a, nil), "no reading, no figure")
	assert.Empty(t, dropsSince(b, a), "a counter that went back (another client) counts nothing")
}
