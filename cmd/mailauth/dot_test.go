package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestDNSServersTLS: -dns takes tls://HOST[:port] (port 853 by default),
// HOST an IP address or a name; anything else is refused with the form
// it takes.
func TestDNSServersTLS(t *testing.T) {
	t.Parallel()
	got, err := parseDNSServers("tls://9.9.9.9, tls://dns.Quad9.net:8853,tls://[2620:fe::fe],tls://[::1]:853,127.0.0.1")
	require.NoError(t, err)
	assert.Equal(t, []string{"tls://9.9.9.9:853", "tls://dns.quad9.net:8853", "tls://[2620:fe::fe]:853", "tls://[::1]:853", "127.0.0.1:53"}, got)
	for _, bad := range []string{"tls://", "tls://9.9.9.9:0", "tls://a..b", "tls://x:port", "tls://nodot"} {
		_, err := parseDNSServers(bad)
		assert.Error(t, err, bad)
	}
}

// TestScanOverDoT: `mailauth scan -dns tls://…` scans over DNS over TLS
// (the CA of -ca-file verifies the server), nothing in clear; a server
// whose certificate is for another name is refused: exit 3, DNS
// unavailable.
func TestScanOverDoT(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	cert, _, caPEM := dnstest.TLSCertificate(t, "127.0.0.1")
	addr, err := lab.DNS.ServeTLS(cert)
	require.NoError(t, err)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, caPEM, 0o600))
	code, out, errOut := runCLI(t, nil, "scan", "-json", "-dns", addr, "-ca-file", ca, "good.example.com")
	assert.Contains(t, []int{exitOK, exitFail}, code, "stderr %q", errOut)
	assert.Contains(t, out, `"domain":"good.example.com"`)
	assert.Positive(t, lab.DNS.CountOver("", dnstest.AnyType, "tls"))
	assert.Zero(t, lab.DNS.CountOver("", dnstest.AnyType, "udp")+lab.DNS.CountOver("", dnstest.AnyType, "tcp"), "nothing in clear")

	other, _, otherPEM := dnstest.TLSCertificate(t, "dns.other.test")
	wrong, err := lab.DNS.ServeTLS(other)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ca, otherPEM, 0o600))
	code, _, errOut = runCLI(t, nil, "scan", "-dns", wrong, "-ca-file", ca, "good.example.com")
	assert.Equal(t, exitUnavailable, code, "stderr %q", errOut)
	assert.Contains(t, errOut, "DNS unavailable")
}
