package resolver

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/miekg/dns"
)

// Properties are what a resolver was found to do when asked (see
// [Client.Probe]), not what its configuration is assumed to say.
type Properties struct {
	// Recursive: it offers recursion (the RA bit of its replies, RFC 1035
	// §4.1.1). An authoritative-only server does not: it answers its own
	// zones and refuses, or answers without data, everything else.
	Recursive bool
	// Validating: it validates DNSSEC: its answer about a signed name
	// (the root, signed since 2010) carried the AD bit (RFC 4035
	// §3.2.3, RFC 6840 §5.7). A resolver that does not validate answers
	// records with broken signatures like any others, so a DNSSEC
	// failure cannot be seen through it.
	Validating bool
}

// Prober is a Resolver that can find its servers' Properties: a
// [Client] asks them; the in-memory resolver of resolver/dnstest says
// what it plays.
type Prober interface {
	// Probe asks the resolver questions about the root and names, and
	// returns its Properties, or an error when no server replied.
	Probe(ctx context.Context, names ...string) (Properties, error)
}

// ErrNoReply is the error of a probe that no server replied to.
var ErrNoReply = errors.New("resolver: no server replied to the probe")

// Probe asks every server the SOA of the root and of each of names
// (questions any recursive resolver answers; names may be "."), once
// each, with recursion desired and the AD bit asked for, and returns
// what the replies show: Recursive when every server that replied set
// RA, Validating when every server that replied set AD on an answer (a
// NOERROR reply). A reply with any RCODE counts (an authoritative-only
// server's REFUSED shows it does not recurse). Servers that did not
// reply are left out; when none replied the error is ErrNoReply. A
// question is sent again, on the same socket with the same ID, at the
// Client's attempt interval, and a late reply is taken, until ctx ends
// (without a deadline, DefaultLookupTimeout).
func (c *Client) Probe(ctx context.Context, names ...string) (Properties, error) {
	ctx, cancel := withDeadline(ctx)
	defer cancel()
	qnames := []string{""}
	for _, n := range names {
		if canon, ok := QuestionName(n); ok && canon != "" {
			qnames = append(qnames, canon)
		}
	}
	servers := c.servers()
	type verdict struct {
		replied, ra, ad bool
	}
	verdicts := make(chan verdict, len(servers))
	for _, server := range servers {
		go func() {
			v := verdict{ra: true}
			replies := make(chan *dns.Msg, len(qnames))
			for _, name := range qnames {
				go func() {
					m, _ := c.probeOne(ctx, server, c.query(name, TypeSOA, false))
					replies <- m
				}()
			}
			for range qnames {
				m := <-replies
				if m == nil {
					continue
				}
				v.replied = true
				v.ra = v.ra && m.RecursionAvailable
				v.ad = v.ad || (m.Rcode == dns.RcodeSuccess && m.AuthenticatedData)
			}
			verdicts <- v
		}()
	}
	p, heard := Properties{Recursive: true, Validating: true}, false
	for range servers {
		v := <-verdicts
		if !v.replied {
			continue
		}
		heard = true
		p.Recursive = p.Recursive && v.ra
		p.Validating = p.Validating && v.ad
	}
	if !heard {
		return Properties{}, ErrNoReply
	}
	return p, nil
}

// probeOne sends q to server and returns its reply: over DNS over TLS
// for a tls:// server; else over UDP from a socket of its own, sent
// again at the Client's attempt interval until a reply with its ID and
// question comes or ctx ends (a truncated reply is asked again over
// TCP).
func (c *Client) probeOne(ctx context.Context, server string, q *dns.Msg) (*dns.Msg, error) {
	if IsTLS(server) {
		return c.exchangeTLS(ctx, server, q)
	}
	q = q.Copy()
	var id [2]byte
	_, _ = rand.Read(id[:])
	q.Id = binary.BigEndian.Uint16(id[:])
	wire, err := q.Pack()
	if err != nil {
		return nil, fmt.Errorf("resolver: pack probe: %w", err)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "udp", server)
	if err != nil {
		return nil, fmt.Errorf("resolver: probe: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	sched := c.schedule()
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTimer(sched.First)
		defer t.Stop()
		for wait := sched.First; ; wait = min(wait+sched.First/4, sched.Max) {
			if _, err := conn.Write(wire); err != nil {
				return
			}
			t.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	buf := make([]byte, 65535)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("resolver: probe: %w", err) // ICMP unreachable, or the socket failed
		}
		m := new(dns.Msg)
		if m.Unpack(buf[:n]) != nil || m.Id != q.Id || !m.Response || len(m.Question) != 1 || !sameDoTQuestion(m.Question[0], q.Question[0]) {
			continue
		}
		if m.Truncated {
			m, _, err := (&dns.Client{Net: "tcp"}).ExchangeContext(ctx, q, server)
			if err != nil {
				return nil, fmt.Errorf("resolver: probe over TCP: %w", err)
			}
			return m, nil
		}
		return m, nil
	}
}
