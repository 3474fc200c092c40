package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
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
	// -timeout: a hang bound, not the library's 15 s, which a loaded
	// machine may spend (the scan would then be incomplete, exit 3).
	code, out, errOut := runCLI(t, nil, "scan", "-json", "-timeout", "2m", "-dns", addr, "-ca-file", ca, "good.example.com")
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

// FuzzParseDNSServers: -dns never panics; every address it accepts is
// host:port that splits, or tls:// and one, with a port in 1..65535, and
// parsing its own output gives it back.
func FuzzParseDNSServers(f *testing.F) {
	for _, s := range []string{"9.9.9.9", "tls://dns.quad9.net", "tls://[2620:fe::fe]:853,127.0.0.1:5353", "tls://", "tls://a..b", "[::1]", "tls://x:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseDNSServers(s)
		if err != nil {
			return
		}
		for _, a := range got {
			_, port, err := net.SplitHostPort(strings.TrimPrefix(a, resolver.TLSPrefix))
			require.NoError(t, err, "%q gave %q", s, a)
			n, err := strconv.Atoi(port)
			require.NoError(t, err)
			assert.True(t, n >= 1 && n <= 65535, "%q gave %q", s, a)
		}
		again, err := parseDNSServers(strings.Join(got, ","))
		require.NoError(t, err, "%q gave %q", s, got)
		assert.Equal(t, got, again)
	})
}

// TestServeOverDoT: serve with a tls:// resolver is ready (the canary
// and the start probe go over DNS over TLS) and scans through it.
func TestServeOverDoT(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	cert, _, caPEM := dnstest.TLSCertificate(t, "127.0.0.1")
	addr, err := lab.DNS.ServeTLS(cert)
	require.NoError(t, err)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, caPEM, 0o600))
	adminc := make(chan string, 1)
	start := time.Now() // before serve's first question
	base, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0", "-storage", "none",
		"-dns", addr, "-ca-file", ca, "-canary-name", "example.com"}, nil, serveHooks{admin: func(a string) { adminc <- a }})
	admin := "http://" + <-adminc
	require.Eventually(t, func() bool { code, _ := readyz(t, admin); return code == 200 }, 30*time.Second, 20*time.Millisecond, log.String())
	assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"good.example.com"}`, nil), log.String())
	assert.Zero(t, lab.DNS.CountOver("", dnstest.AnyType, "udp")+lab.DNS.CountOver("", dnstest.AnyType, "tcp"), "nothing in clear")
	// One connection, reused by the canary, the probe and the scan; or,
	// when a loaded machine let dotIdle pass between two questions (the
	// client then closes it, and the canary asks only every 10 s), at
	// most one more per dotIdle the test took. The time only loosens the
	// bound: a client that opens one per question still fails.
	elapsed := time.Since(start)
	assert.LessOrEqual(t, lab.DNS.TLSConnections(), 1+int(elapsed/dotIdle),
		"one connection (the test %v long), reused by the canary, the probe and the scan", elapsed)
}

// dotIdle is how long the resolver's DNS-over-TLS client keeps a
// connection with no question in flight (resolver/dot.go).
const dotIdle = 10 * time.Second
