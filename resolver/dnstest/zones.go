// Package dnstest serves RFC 1035 zone files for tests, examples and
// benchmarks, in two ways over one zone model: [Start] runs a real
// authoritative DNS server on 127.0.0.1 (UDP and TCP, a free port), and
// [NewResolver] answers the same questions in memory as a
// [resolver.Resolver], without a socket.
//
// The zones stand in for the whole internet: a name outside every loaded
// zone is NXDOMAIN, NXDOMAIN and NODATA are told apart (an empty
// non-terminal is NODATA, RFC 8020), wildcards are synthesised (RFC 4592),
// and CNAME chains are followed across zones, as a recursive resolver
// would, so that a Client pointed at the server sees what it would see
// through a real recursive resolver.
//
// Faults are injected per owner name (and optionally per type) with
// SetFault: a delay, SERVFAIL or REFUSED, a dropped reply (the client times
// out), a truncated UDP reply (the client must retry over TCP) and a
// garbage reply.
//
// Zone files used in tests must point every host the code may connect to
// at 127.0.0.1 or ::1 (DESIGN.md section 5).
package dnstest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver"
)

// Zones is an immutable set of resource records loaded from zone files.
type Zones struct {
	rrs   map[string][]dns.RR // owner → records
	names map[string]bool     // owners and their ancestors (empty non-terminals)
}

// Parse reads zone-file text. origin is used for relative names until a
// $ORIGIN directive; it may be "" when the text has one. $INCLUDE is not
// allowed.
func Parse(text, origin string) (*Zones, error) {
	z := &Zones{rrs: map[string][]dns.RR{}, names: map[string]bool{}}
	if err := z.add(strings.NewReader(text), origin, "zone"); err != nil {
		return nil, err
	}
	return z, nil
}

// Load reads zone files from disk into one Zones.
func Load(paths ...string) (*Zones, error) {
	z := &Zones{rrs: map[string][]dns.RR{}, names: map[string]bool{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("dnstest: read zone: %w", err)
		}
		if err := z.add(bytes.NewReader(b), "", p); err != nil {
			return nil, err
		}
	}
	return z, nil
}

// MustParse is Parse for tests: it fails tb on error.
func MustParse(tb testing.TB, text string) *Zones {
	tb.Helper()
	z, err := Parse(text, "")
	if err != nil {
		tb.Fatal(err)
	}
	return z
}

// MustLoad is Load for tests: it fails tb on error.
func MustLoad(tb testing.TB, paths ...string) *Zones {
	tb.Helper()
	z, err := Load(paths...)
	if err != nil {
		tb.Fatal(err)
	}
	return z
}

func (z *Zones) add(r io.Reader, origin, file string) error {
	if origin != "" {
		origin = dns.Fqdn(origin)
	}
	zp := dns.NewZoneParser(r, origin, file)
	zp.SetDefaultTTL(300)
	zp.SetIncludeAllowed(false)
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		owner := resolver.CanonicalName(rr.Header().Name)
		z.rrs[owner] = append(z.rrs[owner], rr)
		for n := owner; ; n = parent(n) {
			z.names[n] = true
			if n == "" {
				break
			}
		}
	}
	if err := zp.Err(); err != nil {
		return fmt.Errorf("dnstest: parse %s: %w", file, err)
	}
	return nil
}

// Names returns every owner name in the zones, sorted: handy for canary
// and coverage checks in tests.
func (z *Zones) Names() []string {
	out := make([]string, 0, len(z.rrs))
	for n := range z.rrs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Records returns the records owned by name, in zone-file presentation
// format.
func (z *Zones) Records(name string) []string {
	var out []string
	for _, rr := range z.rrs[resolver.CanonicalName(name)] {
		out = append(out, rr.String())
	}
	return out
}

func parent(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return ""
}

// lookup returns the records at name, synthesising them from a wildcard
// when name does not exist (RFC 4592 §3.3.1), and whether name exists.
func (z *Zones) lookup(name string) ([]dns.RR, bool) {
	if z.names[name] {
		return z.rrs[name], true
	}
	encloser := parent(name)
	for encloser != "" && !z.names[encloser] {
		encloser = parent(encloser)
	}
	wild := "*." + encloser
	if encloser == "" {
		wild = "*"
	}
	src, ok := z.rrs[wild]
	if !ok {
		return nil, false
	}
	out := make([]dns.RR, 0, len(src))
	for _, rr := range src {
		c := dns.Copy(rr)
		c.Header().Name = dns.Fqdn(name)
		out = append(out, c)
	}
	return out, true
}

// answer builds the reply to q the way a recursive resolver in front of
// these zones would, following CNAMEs across zones. It returns the names
// visited along the chain so that faults on any of them apply.
func (z *Zones) answer(q dns.Question) (*dns.Msg, []string) {
	m := new(dns.Msg)
	m.Authoritative = true
	name := resolver.CanonicalName(q.Name)
	visited := []string{name}
	for hops := 0; ; hops++ {
		rrs, exists := z.lookup(name)
		if !exists {
			m.Rcode = dns.RcodeNameError
			m.Ns = z.soaFor(name)
			return m, visited
		}
		var cname *dns.CNAME
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, rr)
			} else if c, ok := rr.(*dns.CNAME); ok {
				cname = c
			}
		}
		found := len(m.Answer) > 0 && m.Answer[len(m.Answer)-1].Header().Rrtype == q.Qtype
		if found || cname == nil || q.Qtype == dns.TypeCNAME {
			if !found {
				m.Ns = z.soaFor(name) // NODATA, RFC 2308 §2.2
			}
			return m, visited
		}
		if hops >= resolver.MaxCNAMEChain {
			m.Rcode = dns.RcodeServerFailure
			return m, visited
		}
		m.Answer = append(m.Answer, cname)
		name = resolver.CanonicalName(cname.Target)
		visited = append(visited, name)
	}
}

// soaFor returns the SOA of the closest enclosing zone that has one, for
// the authority section of a negative answer (RFC 2308 §3).
func (z *Zones) soaFor(name string) []dns.RR {
	for n := name; ; n = parent(n) {
		for _, rr := range z.rrs[n] {
			if rr.Header().Rrtype == dns.TypeSOA {
				return []dns.RR{rr}
			}
		}
		if n == "" {
			break
		}
	}
	// No zone here defines an SOA: synthesise one at the top-level label,
	// so that negative answers still carry the RFC 2308 authority.
	top := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		top = name[i+1:]
	}
	soa := &dns.SOA{
		Hdr: dns.RR_Header{Name: dns.Fqdn(top), Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300},
		Ns:  dns.Fqdn("ns." + top), Mbox: dns.Fqdn("hostmaster." + top),
		Serial: 1, Refresh: 3600, Retry: 600, Expire: 86400, Minttl: 300,
	}
	return []dns.RR{soa}
}
