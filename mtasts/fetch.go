package mtasts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// WellKnownPath is the fixed path of the policy file (RFC 8461 §3.2).
const WellKnownPath = "/.well-known/mta-sts.txt"

// fetchResult is what one policy fetch produced.
type fetchResult struct {
	state  FetchState
	codes  []Code
	status int    // HTTP status, 0 when there was no response
	body   string // the policy body when state is Fetched
}

func (f *fetchResult) add(c Code) { f.codes = append(f.codes, c) }

// policyURL returns the URL of the policy of host (RFC 8461 §3.3).
func policyURL(host string, port int) string {
	if port == DefaultPort {
		return "https://" + host + WellKnownPath
	}
	return "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + WellKnownPath
}

// fetch resolves the policy host through r, connects only to permitted
// addresses and GETs the policy over verified HTTPS (RFC 8461 §3.3).
func fetch(ctx context.Context, r resolver.Resolver, domain string, opts Options) fetchResult {
	start := opts.Begun
	if start.IsZero() {
		start = time.Now()
	}
	ctx, cancel := context.WithDeadline(ctx, opts.Deadline(start))
	defer cancel()
	host := PolicyHost(domain)
	url := policyURL(host, opts.port())
	opts.observe(host)
	opts.observe(url)

	addrs, dnsInconclusive := resolveHost(ctx, r, host)
	return fetchFrom(ctx, addrs, dnsInconclusive, host, url, &opts)
}

// fetchFrom connects to the policy host's addresses and GETs the policy
// (see fetch). It is not inlined, so that its locals are not in fetch's
// frame, under which the host's lookups wait.
//
//go:noinline
func fetchFrom(ctx context.Context, addrs []netip.Addr, dnsInconclusive bool, host, url string, opts *Options) fetchResult {
	conn, rep := dialGuarded(ctx, addrs, *opts)
	if conn == nil {
		return noConnection(ctx, addrs, dnsInconclusive, rep)
	}
	res := getPolicy(ctx, conn, host, url, *opts)
	if rep.refused > 0 {
		res.add(CodePolicyHostNonPublic)
	}
	return res
}

// resolveHost looks up the A and AAAA records of host concurrently, through
// the given resolver only (never the system resolver): the A lookup is
// begun (resolver.Begin), the AAAA one asked in this goroutine. It
// returns the addresses, A first, and whether either lookup was
// inconclusive.
func resolveHost(ctx context.Context, r resolver.Resolver, host string) ([]netip.Addr, bool) {
	answers := new([2]resolver.Answer) // on the heap: this frame is under the lookups
	a := resolver.Begin(ctx, r, host, resolver.TypeA)
	answers[1] = r.Lookup(ctx, host, resolver.TypeAAAA)
	answers[0] = a.Wait()
	return hostAddrs(answers)
}

// hostAddrs returns the addresses of answers, A first, and whether either
// lookup was inconclusive. Not inlined (see resolveHost).
//
//go:noinline
func hostAddrs(answers *[2]resolver.Answer) ([]netip.Addr, bool) {
	var addrs []netip.Addr
	inconclusive := false
	for _, a := range answers {
		if !a.Conclusive() {
			inconclusive = true
		}
		addrs = append(addrs, a.Addrs()...)
	}
	return addrs, inconclusive
}

// MaxAddrsPerFamily bounds the addresses of the policy host one fetch
// dials per address family. A hostile zone can give the policy host
// thousands of public addresses; trying each would turn one scan into
// thousands of connection attempts to third parties. Two per
// family survive one dead server per family, as RFC 8305 §4 clients do,
// while bounding a fetch to 4 connection attempts, all within the fetch
// deadline.
const MaxAddrsPerFamily = 2

// dialReport says what the address guard and the dialer did.
type dialReport struct {
	refused   int  // addresses the guard refused (never dialed)
	attempted int  // addresses dialed
	timedOut  bool // a dial timed out or the deadline passed
}

// dialPlan is the address guard and the fan-out bound: it drops
// duplicates (an IPv4-mapped IPv6 address counts as its IPv4 address),
// refuses every address opts.Permitted does not admit (counted in
// refused), and keeps the first MaxAddrsPerFamily permitted addresses of
// each family. The order is stated and stable: the IPv4 addresses (A
// answers, in answer order), then the IPv6 ones (AAAA answers, in answer
// order).
func dialPlan(addrs []netip.Addr, opts Options) (plan []netip.Addr, refused int) {
	seen := make(map[netip.Addr]bool, len(addrs))
	var v4, v6 []netip.Addr
	for _, a := range addrs {
		u := a.Unmap() // an IPv4-mapped address duplicates the IPv4 one
		if seen[a] || seen[u] {
			continue
		}
		seen[a] = true
		if !opts.Permitted(a) { // a, not u: Unmap drops a zone
			refused++
			continue
		}
		seen[u] = true
		switch {
		case u.Is4() && len(v4) < MaxAddrsPerFamily:
			v4 = append(v4, u)
		case u.Is6() && len(v6) < MaxAddrsPerFamily:
			v6 = append(v6, u)
		}
	}
	return append(v4, v6...), refused
}

// dialGuarded dials, in order, each address of the dial plan, each with the
// connect timeout, and returns the first connection made. An address the
// guard refuses is never passed to the dialer. Every dial is to an IP
// literal: no name is resolved again.
func dialGuarded(ctx context.Context, addrs []netip.Addr, opts Options) (net.Conn, dialReport) {
	var rep dialReport
	plan, refused := dialPlan(addrs, opts)
	rep.refused = refused
	dial := opts.dial()
	for _, a := range plan {
		if ctx.Err() != nil {
			rep.timedOut = true
			break
		}
		rep.attempted++
		target := netip.AddrPortFrom(a, uint16(opts.port())).String()
		conn, err := dialOne(ctx, dial, target, opts)
		if err == nil {
			return conn, rep
		}
		if isTimeout(ctx, err) {
			rep.timedOut = true
		}
	}
	return nil, rep
}

func dialOne(ctx context.Context, dial DialFunc, target string, opts Options) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.connectTimeout())
	defer cancel()
	conn, err := dial(ctx, "tcp", target)
	if err != nil {
		return nil, fmt.Errorf("mtasts: dial policy host: %w", err)
	}
	opts.progress()
	if opts.Progress != nil {
		conn = progressConn{conn, opts.Progress}
	}
	return conn, nil
}

// progressConn calls progress after every Read that returned bytes.
type progressConn struct {
	net.Conn
	progress func()
}

func (c progressConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.progress()
	}
	return n, err
}

// noConnection turns a fetch that never connected into its state and
// findings (doc/rfc-notes.md §6.5). No connection is inconclusive when
// a lookup for the host was inconclusive or an attempt timed out, and
// unreachable otherwise.
func noConnection(ctx context.Context, addrs []netip.Addr, dnsInconclusive bool, rep dialReport) fetchResult {
	res := fetchResult{state: Unreachable}
	if rep.refused > 0 {
		res.add(CodePolicyHostNonPublic)
	}
	if rep.attempted > 0 {
		res.add(CodePolicyConnectFailed)
	}
	timedOut := rep.timedOut || ctx.Err() != nil
	if dnsInconclusive {
		res.add(CodePolicyHostDNSInconclusive)
	}
	if timedOut {
		res.add(CodePolicyFetchTimeout)
	}
	switch {
	case dnsInconclusive || timedOut:
		res.state = Inconclusive
	case len(addrs) == 0:
		res.add(CodePolicyHostNotFound)
	}
	return res
}

// isTimeout reports whether err, or ctx, says a deadline passed or the
// caller gave up.
func isTimeout(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
