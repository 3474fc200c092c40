package realdns

import (
	"errors"
	"net"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// resendEvery is how long [Exchange] waits before it sends its question
// again.
const resendEvery = time.Second

// Exchange sends m to addr over UDP, again every second on the same
// socket, and returns the first reply to any of the sends, however late,
// within [dnstest.PatientTimeout]. A reply's time never decides what a test
// reads: Unbound drops a question it has not answered within its
// discard-timeout (1.9 s) and answers a later one from what it learnt
// meanwhile, and on a loaded machine a reply may come seconds late. A
// server not listening yet (the port refuses) is asked again too.
func Exchange(addr string, m *dns.Msg) (*dns.Msg, error) {
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}) // unconnected: a refused send is no error
	if err != nil {
		return nil, err
	}
	defer func() { _ = pc.Close() }()
	q, err := m.Pack()
	if err != nil {
		return nil, err
	}
	end := time.Now().Add(dnstest.PatientTimeout)
	buf := make([]byte, dns.MaxMsgSize)
	for time.Now().Before(end) {
		if _, err := pc.WriteToUDP(q, raddr); err != nil {
			return nil, err
		}
		next := time.Now().Add(resendEvery)
		if next.After(end) {
			next = end
		}
		_ = pc.SetReadDeadline(next)
		for {
			n, from, err := pc.ReadFromUDP(buf)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				break // send again
			}
			if err != nil {
				return nil, err
			}
			if !from.IP.Equal(raddr.IP) || from.Port != raddr.Port {
				continue
			}
			r := new(dns.Msg)
			if r.Unpack(buf[:n]) != nil || r.Id != m.Id {
				continue
			}
			return r, nil
		}
	}
	return nil, errors.New("realdns: no reply from " + addr + " within " + dnstest.PatientTimeout.String())
}
