package ipclass

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		in   string
		want Class
	}{
		{"1.1.1.1", Public},
		{"8.8.8.8", Public},
		{"2606:4700:4700::1111", Public},
		{"::ffff:8.8.8.8", Public},
		{"0.0.0.0", ThisNetwork},
		{"0.1.2.3", ThisNetwork},
		{"10.1.2.3", Private},
		{"172.16.0.1", Private},
		{"172.31.255.255", Private},
		{"172.32.0.1", Public},
		{"192.168.1.1", Private},
		{"100.64.1.1", SharedCGNAT},
		{"100.127.255.255", SharedCGNAT},
		{"100.128.0.1", Public},
		{"127.0.0.1", Loopback},
		{"127.255.0.9", Loopback},
		{"169.254.169.254", LinkLocal},
		{"192.0.0.9", Protocol},
		{"192.0.2.1", Documentation},
		{"198.51.100.7", Documentation},
		{"203.0.113.5", Documentation},
		{"192.31.196.1", Protocol},
		{"192.52.193.1", Protocol},
		{"192.88.99.1", Protocol},
		{"192.175.48.1", Protocol},
		{"198.18.0.1", Benchmarking},
		{"198.19.255.255", Benchmarking},
		{"198.20.0.1", Public},
		{"224.0.0.1", Multicast},
		{"239.255.255.255", Multicast},
		{"240.0.0.1", Reserved},
		{"255.255.255.255", Broadcast},
		{"::", ThisNetwork},
		{"::1", Loopback},
		{"::ffff:10.0.0.1", Private},
		{"::ffff:127.0.0.1", Loopback},
		{"::10.0.0.1", Reserved},
		{"64:ff9b::808:808", Protocol},
		{"100::1", Reserved},
		{"2001::1", Protocol},
		{"2001:0:53aa::1", Protocol},
		{"2001:2::1", Benchmarking},
		{"2001:db8::1", Documentation},
		{"2002:c000:0201::1", Protocol},
		{"2620:4f:8000::1", Protocol},
		{"3fff::1", Documentation},
		{"5f00::1", Protocol},
		{"fd00::1", Private},
		{"fc00::1", Private},
		{"fe80::1", LinkLocal},
		{"fec0::1", Reserved},
		{"ff02::1", Multicast},
		{"4000::1", NotGlobal},
		{"fe80::1%eth0", Zoned},
		{"2a00:1450:4001::1", Public},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			require.Equal(t, tc.want, Classify(netip.MustParseAddr(tc.in)), "Classify(%s)", tc.in)
			require.Equal(t, tc.want == Public, IsPublic(netip.MustParseAddr(tc.in)), "IsPublic(%s) disagrees with Classify", tc.in)
		})
	}
	require.Equal(t, Invalid, Classify(netip.Addr{}), "zero Addr must be Invalid")
}

func TestIsLoopback(t *testing.T) {
	for in, want := range map[string]bool{"127.0.0.1": true, "127.1.2.3": true, "::1": true, "::ffff:127.0.0.1": true, "10.0.0.1": false, "::2": false} {
		assert.Equal(t, want, IsLoopback(netip.MustParseAddr(in)), "IsLoopback(%s)", in)
	}
}
