package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMappedTrustedProxy: a trusted proxy written in IPv4-mapped form
// ("::ffff:127.0.0.1/128") matches the IPv4 peer, so its X-Forwarded-For
// is believed and two forwarded clients are counted apart.
func TestMappedTrustedProxy(t *testing.T) {
	t.Parallel()
	for _, proxy := range []string{"::ffff:127.0.0.1/128", "::ffff:127.0.0.0/104"} {
		ts := NewTestServer(t, &FakeService{}, Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix(proxy)}})
		send := func(xff string) Response {
			req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("example.com")))
			req.Header.Set("X-Forwarded-For", xff)
			return ts.Do(t, req)
		}
		send("203.0.113.1")
		r := send("203.0.113.2")
		assert.Equal(t, "29", r.Header.Get("X-RateLimit-Remaining"), "proxy %s: second forwarded client counted with the first", proxy)
	}
}

// TestNormalizeProxies: mapped prefixes of /96 and longer become IPv4
// prefixes; others are masked and kept.
func TestNormalizeProxies(t *testing.T) {
	t.Parallel()
	in := []netip.Prefix{
		netip.MustParsePrefix("::ffff:192.0.2.1/128"),
		netip.MustParsePrefix("::ffff:192.0.2.0/120"),
		netip.MustParsePrefix("::ffff:0:0/96"),
		netip.MustParsePrefix("10.1.2.3/8"),
		netip.MustParsePrefix("2001:db8::1/48"),
	}
	want := []string{"192.0.2.1/32", "192.0.2.0/24", "0.0.0.0/0", "10.0.0.0/8", "2001:db8::/48"}
	got := normalizeProxies(in)
	for i := range want {
		require.Less(t, i, len(got), "got %v, want %v", got, want)
		require.Equal(t, want[i], got[i].String(), "got %v, want %v", got, want)
	}
}
