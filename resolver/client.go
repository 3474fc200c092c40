package resolver

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Defaults of a Client (issue #2).
const (
	// DefaultTimeout bounds one attempt (one UDP exchange, plus its TCP
	// retry when the reply was truncated).
	DefaultTimeout = 2 * time.Second
	// DefaultAttempts is the number of attempts per question; each attempt
	// goes to the next configured server.
	DefaultAttempts = 2
	// DefaultUDPSize is the EDNS0 buffer size advertised (DNS flag day
	// 2020 recommendation, RFC 9715).
	DefaultUDPSize = 1232
)

// Client is the production Resolver: it sends recursive queries to the
// configured servers with github.com/miekg/dns. The zero value reads
// /etc/resolv.conf on first use.
//
// Each question gets up to Attempts attempts. An attempt sends the query
// over UDP with EDNS0 and retries over TCP when the reply is truncated;
// a timeout, a network error, SERVFAIL, REFUSED or a malformed reply moves
// on to the next server. CNAME chains are followed inside a reply and, when
// a reply stops at an alias, by asking again for its target, up to
// MaxCNAMEChain aliases in all.
type Client struct {
	// Servers are "host:port" addresses of recursive resolvers. Empty
	// means the nameservers of /etc/resolv.conf.
	Servers []string
	// Timeout bounds one attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// Attempts per question; 0 means DefaultAttempts.
	Attempts int
	// UDPSize is the EDNS0 buffer size; 0 means DefaultUDPSize.
	UDPSize uint16
}

// SystemServers returns the nameservers listed in /etc/resolv.conf as
// "host:port", or 127.0.0.1:53 when the file lists none.
func SystemServers() []string {
	return serversFromResolvConf("/etc/resolv.conf")
}

func serversFromResolvConf(path string) []string {
	var out []string
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "nameserver" {
				host := strings.SplitN(fields[1], "%", 2)[0]
				out = append(out, net.JoinHostPort(host, "53"))
			}
		}
	}
	if len(out) == 0 {
		out = []string{"127.0.0.1:53"}
	}
	return out
}

func (c *Client) servers() []string {
	if len(c.Servers) > 0 {
		return c.Servers
	}
	return SystemServers()
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) attempts() int {
	if c.Attempts > 0 {
		return c.Attempts
	}
	return DefaultAttempts
}

func (c *Client) udpSize() uint16 {
	if c.UDPSize > 0 {
		return c.UDPSize
	}
	return DefaultUDPSize
}

// Lookup implements Resolver.
func (c *Client) Lookup(ctx context.Context, name string, qtype Type) Answer {
	name = CanonicalName(name)
	if _, ok := dns.IsDomainName(name); !ok || name == "" {
		return Fail(ReasonInvalidName)
	}
	var chain []string
	for {
		a, next := c.ask(ctx, name, qtype)
		a.CNAMEs = append(chain, a.CNAMEs...)
		if next == "" {
			return a
		}
		if len(a.CNAMEs) > MaxCNAMEChain || next == name {
			return failWith(a, ReasonCNAMELoop)
		}
		chain, name = a.CNAMEs, next
	}
}

// ask runs the attempts for one question and returns its decoded reply.
func (c *Client) ask(ctx context.Context, name string, qtype Type) (Answer, string) {
	servers := c.servers()
	last := Fail(ReasonNetwork)
	for i := 0; i < c.attempts(); i++ {
		if ctx.Err() != nil {
			return Fail(ReasonCanceled), ""
		}
		m, reason := c.exchange(ctx, servers[i%len(servers)], name, qtype)
		if m == nil {
			last = Fail(reason)
			continue
		}
		a, next := FromMsg(name, qtype, m)
		if a.Outcome == Inconclusive && retryable(a.Reason) {
			last = a
			continue
		}
		return a, next
	}
	if ctx.Err() != nil {
		return Fail(ReasonCanceled), ""
	}
	return last, ""
}

func retryable(r Reason) bool {
	return r == ReasonServFail || r == ReasonRefused || r == ReasonRcode
}

// exchange sends one query to server over UDP, and over TCP when the
// UDP reply is truncated. It returns the reply or why there is none.
func (c *Client) exchange(ctx context.Context, server, name string, qtype Type) (*dns.Msg, Reason) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), uint16(qtype))
	q.RecursionDesired = true
	q.SetEdns0(c.udpSize(), false)

	udp := &dns.Client{Net: "udp", UDPSize: c.udpSize(), Timeout: c.timeout()}
	m, _, err := udp.ExchangeContext(ctx, q, server)
	if err != nil {
		return nil, transportReason(ctx, err)
	}
	if m.Truncated {
		tcp := &dns.Client{Net: "tcp", Timeout: c.timeout()}
		m, _, err = tcp.ExchangeContext(ctx, q, server)
		if err != nil {
			if r := transportReason(ctx, err); r == ReasonCanceled {
				return nil, r
			}
			return nil, ReasonTruncated
		}
	}
	if m.Id != q.Id || len(m.Question) != 1 || !strings.EqualFold(m.Question[0].Name, q.Question[0].Name) {
		return nil, ReasonMalformed
	}
	return m, ReasonNone
}

func transportReason(ctx context.Context, err error) Reason {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ReasonCanceled
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ReasonTimeout
	}
	var de *dns.Error
	if errors.As(err, &de) {
		return ReasonMalformed
	}
	return ReasonNetwork
}
