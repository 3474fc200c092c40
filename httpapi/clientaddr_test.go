package httpapi

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWideProxies: prefixes wider than an IPv4 /16 or an IPv6 /32 are
// reported, an IPv4-mapped one as the IPv4 prefix it denotes.
func TestWideProxies(t *testing.T) {
	in := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("192.0.2.1/32"),
		netip.MustParsePrefix("::ffff:0:0/96"), netip.MustParsePrefix("::ffff:10.0.0.0/112"),
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("2001:db8::/24"), netip.MustParsePrefix("::/0"),
	}
	got := WideProxies(in)
	assert.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("0.0.0.0/0"),
		netip.MustParsePrefix("2001:d00::/24"), netip.MustParsePrefix("::/0"),
	}, got)
}
