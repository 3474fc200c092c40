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
// It is safe for concurrent use by any number of Servers and Resolvers.
type Zones struct {
	rrs   map[string][]dns.RR // owner → records as parsed, served by Server
	wire  map[string][]dns.RR // owner → the same records after a wire round trip, answered by Resolver
	names map[string]bool     // owners and their ancestors (empty non-terminals)
}

func newZones() *Zones {
	return &Zones{rrs: map[string][]dns.RR{}, wire: map[string][]dns.RR{}, names: map[string]bool{}}
}

// Parse reads zone-file text. origin is used for relative names until a
// $ORIGIN directive; it may be "" when the text has one. $INCLUDE is not
// allowed.
func Parse(text, origin string) (*Zones, error) {
	z := newZones()
	if err := z.add(strings.NewReader(text), origin, "zone"); err != nil {
		return nil, err
	}
	return z, nil
}

// Load reads zone files from disk into one Zones.
func Load(paths ...string) (*Zones, error) {
	z := newZones()
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

// add parses one zone file. Every record is also packed and unpacked
// once, which rejects records that could not be sent (a TXT string over
// 255 octets, say) and gives the in-memory Resolver exactly what a Client
// decodes from the Server's replies.
func (z *Zones) add(r io.Reader, origin, file string) error {
	if origin != "" {
		origin = dns.Fqdn(origin)
	}
	zp := dns.NewZoneParser(r, origin, file)
	zp.SetDefaultTTL(300)
	zp.SetIncludeAllowed(false)
	buf := make([]byte, dns.MaxMsgSize)
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		w, err := roundTrip(rr, buf)
		if err != nil {
			return fmt.Errorf("dnstest: %s: record %q: %w", file, rr.String(), err)
		}
		owner := resolver.CanonicalName(rr.Header().Name)
		z.rrs[owner] = append(z.rrs[owner], rr)
		z.wire[owner] = append(z.wire[owner], w)
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

// roundTrip packs rr into buf and unpacks it again.
func roundTrip(rr dns.RR, buf []byte) (dns.RR, error) {
	off, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		return nil, err
	}
	w, _, err := dns.UnpackRR(buf[:off], 0)
	return w, err
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

// maxChase bounds the aliases answer follows for one question: twice
// resolver.MaxCNAMEChain, so that the Client's own bound is what tests
// exercise.
const maxChase = 2 * resolver.MaxCNAMEChain

// lookup returns the records at name (as parsed, or in wire form),
// synthesising them from a wildcard when name does not exist (RFC 4592
// §3.3.1), and whether name exists.
func (z *Zones) lookup(name string, wire bool) ([]dns.RR, bool) {
	set := z.rrs
	if wire {
		set = z.wire
	}
	if z.names[name] {
		return set[name], true
	}
	encloser := parent(name)
	for encloser != "" && !z.names[encloser] {
		encloser = parent(encloser)
	}
	wild := "*." + encloser
	if encloser == "" {
		wild = "*"
	}
	src, ok := set[wild]
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
// these zones would, following CNAMEs across zones. A looping chain, or
// one longer than maxChase, ends in SERVFAIL with the aliases followed so
// far. It returns the names visited along the chain so that faults on any
// of them apply. wire selects the records in wire form (for Resolver).
func (z *Zones) answer(q dns.Question, wire bool) (*dns.Msg, []string) {
	m := new(dns.Msg)
	m.Authoritative = true
	name := resolver.CanonicalName(q.Name)
	visited := []string{name}
	seen := map[string]bool{name: true}
	m.AuthenticatedData = true
	for {
		// Every name of the chain must be in a signed zone for the
		// answer to be validated (RFC 4035 §3.2.3).
		m.AuthenticatedData = m.AuthenticatedData && z.signed(name)
		rrs, exists := z.lookup(name, wire)
		if !exists {
			m.Rcode = dns.RcodeNameError
			m.Ns = z.soaFor(name)
			return m, visited
		}
		var cname *dns.CNAME
		found := false
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, rr)
				found = true
			} else if c, ok := rr.(*dns.CNAME); ok && cname == nil {
				cname = c
			}
		}
		if found || cname == nil || q.Qtype == dns.TypeCNAME {
			if !found {
				m.Ns = z.soaFor(name) // NODATA, RFC 2308 §2.2
			}
			return m, visited
		}
		m.Answer = append(m.Answer, cname)
		name = resolver.CanonicalName(cname.Target)
		if seen[name] || len(visited) > maxChase {
			m.Rcode = dns.RcodeServerFailure
			return m, visited
		}
		seen[name] = true
		visited = append(visited, name)
	}
}

// signed reports whether name is in a zone taken as DNSSEC-signed: the
// closest enclosing name with an SOA record also has a DNSKEY record.
// Nothing is signed; an answer from such a zone carries the AD bit, as a
// validating resolver's would (RFC 4035 §3.2.3).
func (z *Zones) signed(name string) bool {
	for n := name; ; n = parent(n) {
		soa, key := false, false
		for _, rr := range z.rrs[n] {
			switch rr.Header().Rrtype {
			case dns.TypeSOA:
				soa = true
			case dns.TypeDNSKEY:
				key = true
			}
		}
		if soa {
			return key
		}
		if n == "" {
			return false
		}
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

// has reports whether the zones hold records at name (canonical form;
// "" for the root).
func (z *Zones) has(name string) bool { return len(z.rrs[name]) > 0 }
