package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestWithDNSPort: a DNSServers entry without a port means port 53.
func TestWithDNSPort(t *testing.T) {
	got := withDNSPort([]string{"9.9.9.9", "127.0.0.1:5353", "2620:fe::fe", "[2620:fe::9]", "[::1]:53", " 1.1.1.1 ",
		"tls://dns.example.net", "tls://9.9.9.9:8853", "tls://[2620:fe::fe]"})
	assert.Equal(t, []string{"9.9.9.9:53", "127.0.0.1:5353", "[2620:fe::fe]:53", "[2620:fe::9]:53", "[::1]:53", "1.1.1.1:53",
		"tls://dns.example.net:853", "tls://9.9.9.9:8853", "tls://[2620:fe::fe]:853"}, got)
	assert.Empty(t, withDNSPort(nil))
}

// TestNewAddsDNSPort: New's default resolver queries port 53 of a server
// given without a port.
func TestNewAddsDNSPort(t *testing.T) {
	s := New(Config{DNSServers: []string{"127.0.0.1", "::1"}})
	c, ok := s.cfg.Resolver.(*resolver.Client)
	if assert.True(t, ok) {
		assert.Equal(t, []string{"127.0.0.1:53", "[::1]:53"}, c.Servers)
	}
}
