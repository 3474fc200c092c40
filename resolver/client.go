package resolver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// Defaults of a Client (product choices; doc/design.md §2).
const (
	// DefaultTimeout bounds one attempt (one UDP exchange, plus its TCP
	// retry when the reply was truncated). Product choice, no RFC sets it:
	// a recursive resolver answers from cache in milliseconds and resolves
	// most names within a few hundred, so 2 s lets a slow authoritative
	// chain finish while a lost packet or a dead server costs little of a
	// scan's time (DefaultTimeout × DefaultAttempts per question stays
	// well inside the scanner's overall deadline).
	DefaultTimeout = 2 * time.Second
	// DefaultAttempts is the number of attempts per question; each attempt
	// goes to the next configured server. Product choice: one retry
	// survives a single lost UDP packet or one failing server, and
	// reaches a second server when two are configured; more attempts
	// would mostly delay the "inconclusive" verdict a scan must report
	// anyway when the resolvers are down.
	DefaultAttempts = 2
	// DefaultUDPSize is the EDNS0 buffer size advertised (DNS flag day
	// 2020 recommendation, RFC 9715).
	DefaultUDPSize = 1232
)

// Client is the production Resolver: it sends recursive queries to the
// configured servers with github.com/miekg/dns. The zero value asks the
// servers of /etc/resolv.conf (see [SystemServers]).
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
// "host:port", or 127.0.0.1:53 when the file lists none. The file is read
// again at most every [resolvConfRecheck], so that a long-running server
// follows changes to it.
func SystemServers() []string {
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if now := time.Now(); sys.servers == nil || now.Sub(sys.read) >= resolvConfRecheck {
		sys.servers, sys.read = serversFromResolvConf("/etc/resolv.conf"), now
	}
	return slices.Clone(sys.servers)
}

// resolvConfRecheck is how long SystemServers trusts its last reading of
// /etc/resolv.conf (the Go standard library's resolver uses the same).
const resolvConfRecheck = 5 * time.Second

var sys struct {
	mu      sync.Mutex
	servers []string
	read    time.Time
}

// serversFromResolvConf returns the "nameserver" addresses of a
// resolv.conf(5) file as "host:port" (port 53; an IPv6 zone is kept, so
// that link-local servers work). Lines whose address is not an IP address
// are ignored. A missing or empty file gives 127.0.0.1:53, as in glibc.
func serversFromResolvConf(path string) []string {
	var out []string
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != "nameserver" {
				continue
			}
			if _, err := netip.ParseAddr(fields[1]); err == nil {
				out = append(out, net.JoinHostPort(fields[1], "53"))
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
	a, _ := c.LookupTTL(ctx, name, qtype)
	return a
}

// LookupTTL is Lookup that also says how long the answer may be cached,
// in seconds: the smallest TTL of the records and aliases of every reply
// it was built from for Found, the negative TTL of RFC 2308 §5 for NoData
// and NXDomain, and 0 (not to be cached) when a reply gave none or the
// answer is inconclusive. A [Cache] uses it.
func (c *Client) LookupTTL(ctx context.Context, name string, qtype Type) (Answer, uint32) {
	name = CanonicalName(name)
	if _, ok := dns.IsDomainName(name); !ok || name == "" {
		return Fail(ReasonInvalidName), 0
	}
	seen := map[string]bool{name: true}
	var chain []string
	ttl := uint32(math.MaxUint32)
	for {
		a, next, hopTTL := c.ask(ctx, name, qtype)
		ttl = min(ttl, hopTTL)
		for _, alias := range a.CNAMEs {
			if seen[alias] {
				a.CNAMEs = append(chain, a.CNAMEs...)
				return failWith(a, ReasonCNAMELoop), 0
			}
			seen[alias] = true
		}
		a.CNAMEs = append(chain, a.CNAMEs...)
		if len(a.CNAMEs) > MaxCNAMEChain {
			return failWith(a, ReasonCNAMELoop), 0
		}
		if next == "" {
			if !a.Conclusive() {
				ttl = 0
			}
			return a, ttl
		}
		chain, name = a.CNAMEs, next
	}
}

// ask runs the attempts for one question and returns its decoded reply
// and how long it may be cached (see msgTTL).
func (c *Client) ask(ctx context.Context, name string, qtype Type) (Answer, string, uint32) {
	servers := c.servers()
	last := Fail(ReasonNetwork)
	for i := 0; i < c.attempts(); i++ {
		if ended(ctx) {
			return Fail(ReasonCanceled), "", 0
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
		return a, next, msgTTL(a, next, m)
	}
	if ended(ctx) {
		return Fail(ReasonCanceled), "", 0
	}
	return last, "", 0
}

// ended reports whether the caller's context is done or its deadline has
// passed (a socket deadline can fire a moment before ctx's own timer).
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
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
	q.AuthenticatedData = true // ask for the AD bit (RFC 6840 §5.7)
	q.SetEdns0(c.udpSize(), false)

	m, err := c.roundTrip(ctx, "udp", server, q)
	if err != nil {
		return nil, transportReason(ctx, err)
	}
	if m.Truncated {
		m, err = c.roundTrip(ctx, "tcp", server, q)
		if err != nil {
			if r := transportReason(ctx, err); r == ReasonCanceled {
				return nil, r
			}
			return nil, ReasonTruncated
		}
	}
	if m.Id != q.Id || !m.Response || len(m.Question) != 1 || !sameQuestion(m.Question[0], q.Question[0]) {
		return nil, ReasonMalformed
	}
	return m, ReasonNone
}

// roundTrip sends q over one connection. The connection's deadline is
// pulled in when ctx ends, so that a canceled caller does not wait for
// the read timeout (miekg/dns only honours ctx's deadline).
func (c *Client) roundTrip(ctx context.Context, network, server string, q *dns.Msg) (*dns.Msg, error) {
	dc := &dns.Client{Net: network, UDPSize: c.udpSize(), Timeout: c.timeout()}
	conn, err := dc.DialContext(ctx, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	m, _, err := dc.ExchangeWithConnContext(ctx, q, conn)
	return m, err
}

func sameQuestion(a, b dns.Question) bool {
	return a.Qtype == b.Qtype && a.Qclass == b.Qclass && strings.EqualFold(a.Name, b.Name)
}

// transportReason classifies an exchange error: the caller's
// cancellation, a timeout, a network failure (dial, refused, reset, early
// close) or, for anything else, a reply that could not be decoded.
func transportReason(ctx context.Context, err error) Reason {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ReasonCanceled
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ReasonTimeout
	}
	var oe *net.OpError
	if errors.As(err, &oe) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return ReasonNetwork
	}
	return ReasonMalformed
}
