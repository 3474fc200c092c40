package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
)

// unknownSource is the rate-limit key of a request whose peer address
// cannot be parsed (not a TCP connection, e.g. a unit test's request).
const unknownSource = "unknown"

// ipv6KeyBits is the prefix length an IPv6 client is counted by. A
// subscriber, household or server usually holds at least a whole /64
// (end sites get a /64 or shorter prefix, RFC 6177; RFC 7934 §6 even
// recommends a /64 per host), and a host may use any of its 2^64
// interface identifiers (temporary addresses, RFC 8981), so a key per
// IPv6 address would let one host take a fresh address for every request
// and never meet the limit. IPv4 addresses are scarce enough to key on
// one address each.
const ipv6KeyBits = 64

// sourceAddr returns the rate-limit key of r (see [limitKey]) of the
// client: the TCP peer address, or, when the peer is a trusted proxy, the
// rightmost X-Forwarded-For hop that is not a trusted proxy.
func sourceAddr(r *http.Request, trusted []netip.Prefix) string {
	return limitKey(sourceIP(r, trusted))
}

// sourceIP returns the client address of r as sourceAddr determines it,
// unmapped and without zone; the zero Addr when the peer address cannot be
// parsed.
func sourceIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	addr := ap.Addr().Unmap().WithZone("")
	if len(trusted) > 0 && inPrefixes(addr, trusted) {
		addr = forwardedClient(addr, r.Header.Values("X-Forwarded-For"), trusted)
	}
	return addr
}

// limitKey is the rate-limit key of a client address: an IPv4 address
// itself ("192.0.2.1"), an IPv6 address its /64 ("2001:db8:1:2::/64", see
// [ipv6KeyBits]). IPv4-mapped IPv6 addresses count as IPv4.
func limitKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	switch {
	case a.Is4():
		return a.String()
	case a.Is6():
		return netip.PrefixFrom(a, ipv6KeyBits).Masked().String()
	}
	return unknownSource // the zero Addr
}

// forwardedClient walks the X-Forwarded-For hops from the right (the hop
// the trusted peer itself added) and returns the first one that is not a
// trusted proxy. A malformed hop stops the walk: everything left of it is
// unverifiable, so the last good hop is used. When every hop is trusted
// the leftmost is the client.
func forwardedClient(peer netip.Addr, values []string, trusted []netip.Prefix) netip.Addr {
	hops := make([]string, 0, 4)
	for _, v := range values {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			return client
		}
		client = hop
		if !inPrefixes(hop, trusted) {
			return hop
		}
	}
	return client
}

// parseHop reads one X-Forwarded-For element: an address, optionally with
// a port ("192.0.2.1:1234", "[2001:db8::1]:1234").
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// inPrefixes reports whether a lies in one of ps.
func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// normalizeProxies returns the trusted-proxy prefixes in the form sourceAddr
// compares against: every peer and hop address is unmapped to IPv4 before
// the comparison, so an IPv4-mapped prefix ("::ffff:192.0.2.1/128",
// "::ffff:192.0.2.0/120") becomes the IPv4 prefix it denotes
// ("192.0.2.1/32", "192.0.2.0/24"); otherwise it could never match. A
// mapped prefix shorter than /96 spans more than the mapped range and is
// kept as written. Zones are dropped and host bits cleared.
func normalizeProxies(ps []netip.Prefix) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(ps))
	for _, p := range ps {
		if !p.IsValid() {
			continue
		}
		a := p.Addr().WithZone("")
		bits := p.Bits()
		if a.Is4In6() && bits >= 96 {
			a, bits = a.Unmap(), bits-96
		}
		out = append(out, netip.PrefixFrom(a, bits).Masked())
	}
	return out
}

// Widest trusted-proxy prefixes that draw no warning: an IPv4 /16 and an
// IPv6 /32. A wider one lets every client in it forge X-Forwarded-For
// and so choose its own rate-limit key.
const (
	widestProxy4 = 16
	widestProxy6 = 32
)

// WideProxies returns the trusted-proxy prefixes wider than an IPv4 /16
// or an IPv6 /32, in the form they are matched in: an IPv4-mapped prefix
// (::ffff:0:0/96 is every IPv4 client) counts as the IPv4 prefix it
// denotes. `mailauth serve` warns about each at start-up.
func WideProxies(ps []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range normalizeProxies(ps) {
		if p.Addr().Is4() && p.Bits() < widestProxy4 || p.Addr().Is6() && p.Bits() < widestProxy6 {
			out = append(out, p)
		}
	}
	return out
}
