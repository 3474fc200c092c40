package ptr

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsHostname(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"mail.example.com", true},
		{"xn--bcher-kva.example", true},
		{"198-51-100-7.pool.example", true},
		{"localhost", false}, // a bare label
		{"mail", false},
		{"", false},
		{"bad_name.example", false},
		{"bad name.example", false},
		{"-a.example", false},
		{"a-.example", false},
		{"a..example", false},
		{"198.51.100.7", false},
		{"host.123", false},
		{strings.Repeat("a", 64) + ".example", false},
		{strings.Repeat("abcdefg.", 32) + "com", false},
	} {
		assert.Equal(t, tc.want, isHostname(tc.name), "isHostname(%q)", tc.name)
	}
}

func TestIsLocalhost(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"localhost": true, "a.localhost": true, "localhost.example": false, "mylocalhost": false,
	} {
		assert.Equal(t, want, isLocalhost(name), "isLocalhost(%q)", name)
	}
}

func TestIsGeneric(t *testing.T) {
	t.Parallel()
	a := netip.MustParseAddr("198.51.100.7")
	for _, tc := range []struct {
		name string
		addr netip.Addr
		want bool
	}{
		{"198-51-100-7.pool.example", a, true},
		{"host-7-100-51-198.dyn.example", a, true},
		{"7.100.51.198.in-addr.example", a, true},
		{"c198.51.100.7.example", a, true},
		{"ip198051100007.example", a, true},
		{"198-51-100-70.pool.example", a, false},
		{"1198-51-100-7.pool.example", a, false},
		{"mail.example.com", a, false},
		{"198-51-100-7.pool.example", netip.MustParseAddr("2001:db8::7"), false},
	} {
		assert.Equal(t, tc.want, isGeneric(tc.name, tc.addr), "isGeneric(%q, %s)", tc.name, tc.addr)
	}
}
