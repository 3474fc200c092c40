// Package ipclass tells public unicast addresses apart from the
// special-purpose ranges of the IANA IPv4 and IPv6 special-purpose address
// registries (RFC 6890) and related RFCs.
//
// It is the one table behind three rules: a sending IP must be public
// (doc/rfc-notes.md §10), an MX exchange that resolves only to
// non-public addresses cannot receive Internet mail, and the MTA-STS policy
// fetch never connects to a non-public address. Go's netip predicates are
// not enough: IsPrivate covers only RFC 1918 and ULA, and IsGlobalUnicast
// is true for documentation, CGNAT, benchmarking and other ranges.
package ipclass

import (
	"net/netip"
	"slices"
)

// Class names the range an address falls in.
type Class string

// Classes. Every class but Public is refused wherever a public address is
// required.
const (
	Public        Class = "public"        // globally routable unicast
	Invalid       Class = "invalid"       // the zero netip.Addr
	Zoned         Class = "zoned"         // carries an IPv6 zone (scope) identifier
	ThisNetwork   Class = "this_network"  // 0.0.0.0/8 (RFC 791), :: (RFC 4291)
	Private       Class = "private"       // RFC 1918, ULA fc00::/7 (RFC 4193)
	SharedCGNAT   Class = "shared"        // 100.64.0.0/10 (RFC 6598)
	Loopback      Class = "loopback"      // 127.0.0.0/8 (RFC 1122), ::1
	LinkLocal     Class = "link_local"    // 169.254.0.0/16 (RFC 3927), fe80::/10
	Documentation Class = "documentation" // RFC 5737, RFC 3849, RFC 9637
	Benchmarking  Class = "benchmarking"  // 198.18.0.0/15 (RFC 2544), 2001:2::/48
	Multicast     Class = "multicast"     // 224.0.0.0/4, ff00::/8
	Reserved      Class = "reserved"      // 240.0.0.0/4 (RFC 1112) and other reserved space
	Broadcast     Class = "broadcast"     // 255.255.255.255 (RFC 919)
	Protocol      Class = "protocol"      // IETF protocol assignments, anycast services, tunnels
	NotGlobal     Class = "not_global"    // IPv6 outside 2000::/3 not named above
)

type entry struct {
	prefix netip.Prefix
	class  Class
}

// v4 lists the IPv4 ranges that are not public (doc/rfc-notes.md §10).
var v4 = []entry{
	{netip.MustParsePrefix("0.0.0.0/8"), ThisNetwork},
	{netip.MustParsePrefix("10.0.0.0/8"), Private},
	{netip.MustParsePrefix("100.64.0.0/10"), SharedCGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), Loopback},
	{netip.MustParsePrefix("169.254.0.0/16"), LinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), Private},
	{netip.MustParsePrefix("192.0.0.0/24"), Protocol},      // RFC 6890, RFC 7335
	{netip.MustParsePrefix("192.0.2.0/24"), Documentation}, // TEST-NET-1, RFC 5737
	{netip.MustParsePrefix("192.31.196.0/24"), Protocol},   // AS112, RFC 7535
	{netip.MustParsePrefix("192.52.193.0/24"), Protocol},   // AMT, RFC 7450
	{netip.MustParsePrefix("192.88.99.0/24"), Protocol},    // 6to4 relay, RFC 7526
	{netip.MustParsePrefix("192.168.0.0/16"), Private},
	{netip.MustParsePrefix("192.175.48.0/24"), Protocol},      // AS112, RFC 7534
	{netip.MustParsePrefix("198.18.0.0/15"), Benchmarking},    // RFC 2544
	{netip.MustParsePrefix("198.51.100.0/24"), Documentation}, // TEST-NET-2
	{netip.MustParsePrefix("203.0.113.0/24"), Documentation},  // TEST-NET-3
	{netip.MustParsePrefix("224.0.0.0/4"), Multicast},         // RFC 5771
	{netip.MustParsePrefix("255.255.255.255/32"), Broadcast},  // RFC 919; checked before 240/4
	{netip.MustParsePrefix("240.0.0.0/4"), Reserved},          // RFC 1112 §4
}

// v6 lists the IPv6 ranges that are not public. Only 2000::/3 can be
// public at all; the table names the well-known ranges outside it too, so
// that errors can say which.
var v6 = []entry{
	{netip.MustParsePrefix("::/128"), ThisNetwork},
	{netip.MustParsePrefix("::1/128"), Loopback},
	{netip.MustParsePrefix("::/96"), Reserved},              // IPv4-compatible, RFC 4291 §2.5.5.1
	{netip.MustParsePrefix("64:ff9b::/96"), Protocol},       // NAT64, RFC 6052
	{netip.MustParsePrefix("64:ff9b:1::/48"), Protocol},     // local NAT64, RFC 8215
	{netip.MustParsePrefix("100::/64"), Reserved},           // discard, RFC 6666
	{netip.MustParsePrefix("2001:2::/48"), Benchmarking},    // RFC 5180
	{netip.MustParsePrefix("2001::/23"), Protocol},          // IETF protocol assignments, RFC 2928
	{netip.MustParsePrefix("2001:db8::/32"), Documentation}, // RFC 3849
	{netip.MustParsePrefix("2002::/16"), Protocol},          // 6to4, RFC 3056
	{netip.MustParsePrefix("2620:4f:8000::/48"), Protocol},  // AS112, RFC 7534
	{netip.MustParsePrefix("3fff::/20"), Documentation},     // RFC 9637
	{netip.MustParsePrefix("5f00::/16"), Protocol},          // SRv6 SIDs, RFC 9602
	{netip.MustParsePrefix("fc00::/7"), Private},            // ULA, RFC 4193
	{netip.MustParsePrefix("fe80::/10"), LinkLocal},
	{netip.MustParsePrefix("fec0::/10"), Reserved}, // old site-local, RFC 3879
	{netip.MustParsePrefix("ff00::/8"), Multicast},
}

var globalUnicast = netip.MustParsePrefix("2000::/3")

// Refused returns every class but Public that Classify can return,
// sorted: the ranges an error may name when a public address is required.
func Refused() []Class {
	out := []Class{Zoned, NotGlobal}
	for _, e := range append(append([]entry(nil), v4...), v6...) {
		if !slices.Contains(out, e.class) {
			out = append(out, e.class)
		}
	}
	slices.Sort(out)
	return out
}

// Classify returns the class of addr. An IPv4-mapped IPv6 address is
// classified as the IPv4 address it maps. The most specific listed range
// wins (2001:2::/48 is Benchmarking although 2001::/23 is Protocol).
func Classify(addr netip.Addr) Class {
	if !addr.IsValid() {
		return Invalid
	}
	if addr.Zone() != "" {
		return Zoned
	}
	addr = addr.Unmap()
	table := v4
	if addr.Is6() {
		table = v6
	}
	best, bits := Public, -1
	for _, e := range table {
		if e.prefix.Contains(addr) && e.prefix.Bits() > bits {
			best, bits = e.class, e.prefix.Bits()
		}
	}
	if best == Public && addr.Is6() && !globalUnicast.Contains(addr) {
		return NotGlobal
	}
	return best
}

// IsPublic reports whether addr is a public unicast address.
func IsPublic(addr netip.Addr) bool { return Classify(addr) == Public }

// IsLoopback reports whether addr is in 127.0.0.0/8 or is ::1 (also in
// IPv4-mapped form). It is the only relaxation the MTA-STS lab option
// -allow-loopback-targets grants.
func IsLoopback(addr netip.Addr) bool { return Classify(addr) == Loopback }
