package resolver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServersFromResolvConf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"ipv4", "nameserver 192.0.2.53\n", []string{"192.0.2.53:53"}},
		{"several-in-order", "# comment\nsearch example.test\nnameserver 192.0.2.1\noptions ndots:1\nnameserver 192.0.2.2\n", []string{"192.0.2.1:53", "192.0.2.2:53"}},
		{"ipv6", "nameserver 2001:db8::53\n", []string{"[2001:db8::53]:53"}},
		{"ipv6-zone-kept", "nameserver fe80::1%eth0\n", []string{"[fe80::1%eth0]:53"}},
		{"tabs-and-trailing-comment", "nameserver\t192.0.2.9   # primary\n", []string{"192.0.2.9:53"}},
		{"commented-out", "#nameserver 192.0.2.1\n;nameserver 192.0.2.2\n", []string{"127.0.0.1:53"}},
		{"hostname-ignored", "nameserver dns.example.test\nnameserver 192.0.2.3\n", []string{"192.0.2.3:53"}},
		{"missing-address", "nameserver\n", []string{"127.0.0.1:53"}},
		{"empty", "", []string{"127.0.0.1:53"}},
		{"crlf", "nameserver 192.0.2.4\r\n", []string{"192.0.2.4:53"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "resolv.conf")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o600))
			assert.Equal(t, tc.want, serversFromResolvConf(path))
		})
	}
	t.Run("missing-file", func(t *testing.T) {
		t.Parallel()
		got := serversFromResolvConf(filepath.Join(t.TempDir(), "absent"))
		assert.Equal(t, []string{"127.0.0.1:53"}, got)
	})
}

// TestSystemServersCopy: the caller may edit the list it gets.
func TestSystemServersCopy(t *testing.T) {
	t.Parallel()
	a := SystemServers()
	require.NotEmpty(t, a, "no servers")
	a[0] = "changed"
	assert.NotEqual(t, "changed", SystemServers()[0], "SystemServers returned its cache")
}

// TestClientRereadsResolvConf: a Client with no Servers asks those of
// resolv.conf, keeps its reading for resolvConfRecheck, then reads the
// file again.
func TestClientRereadsResolvConf(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(path, []byte("nameserver 192.0.2.1\n"), 0o600))
	clock := &ManualClock{}
	c := &Client{}
	c.system.path, c.system.now = path, clock.Now
	assert.Equal(t, []string{"192.0.2.1:53"}, c.servers())

	require.NoError(t, os.WriteFile(path, []byte("nameserver 192.0.2.2\n"), 0o600))
	clock.Advance(resolvConfRecheck - time.Second)
	assert.Equal(t, []string{"192.0.2.1:53"}, c.servers(), "read again before resolvConfRecheck")
	clock.Advance(time.Second)
	assert.Equal(t, []string{"192.0.2.2:53"}, c.servers(), "not read again after resolvConfRecheck")

	c.Servers = []string{"192.0.2.9:53"}
	assert.Equal(t, []string{"192.0.2.9:53"}, c.servers(), "Servers did not take precedence")
}

// TestUnescape covers the presentation escapes of miekg/dns directly.
func TestUnescape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{`a\"b`, `a"b`},
		{`a\\b`, `a\b`},
		{`\065\066`, "AB"},
		{`\000`, "\x00"},
		{`\255`, "\xff"},
		{`\256`, "256"}, // not a byte: the digits are kept
		{`\12`, "12"},
		{`\1`, "1"},
		{`end\`, `end\`},
		{`\;`, ";"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, unescape(tc.in), "unescape(%q)", tc.in)
	}
}
