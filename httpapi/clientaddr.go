package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
)

// unknownSource is the rate-limit key of a request whose peer address
// cannot be parsed (not a TCP connection, e.g. a unit test's request).
const unknownSource = "unknown"

// sourceAddr returns the rate-limit key of r: the TCP peer address, or,
// when the peer is a trusted proxy, the rightmost X-Forwarded-For hop that
// is not a trusted proxy. IPv4-mapped IPv6 addresses count as IPv4.
func sourceAddr(r *http.Request, trusted []netip.Prefix) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return unknownSource
	}
	addr := ap.Addr().Unmap().WithZone("")
	if len(trusted) == 0 || !inPrefixes(addr, trusted) {
		return addr.String()
	}
	return forwardedClient(addr, r.Header.Values("X-Forwarded-For"), trusted).String()
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
