package resolver_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// startDoT serves the resolver test zones over UDP, TCP and DNS over TLS
// with a certificate for hosts from a test CA. It returns the server and
// a Client that asks it over TLS only, trusting the CA.
func startDoT(t *testing.T, hosts ...string) (*dnstest.Server, *resolver.Client) {
	t.Helper()
	srv := dnstest.Start(t, zones(t))
	cert, pool, _ := dnstest.TLSCertificate(t, hosts...)
	addr, err := srv.ServeTLS(cert)
	require.NoError(t, err)
	return srv, &resolver.Client{Servers: []string{addr}, RootCAs: pool}
}

// TestDoT: a tls:// server is asked over DNS over TLS (RFC 7858): the
// answers are the zones', nothing goes over UDP or plain TCP, and the
// questions of a burst of lookups share one connection (pipelined),
// which the next lookup reuses.
func TestDoT(t *testing.T) {
	t.Parallel()
	srv, c := startDoT(t, "127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.ElementsMatch(t, []string{"192.0.2.1", "192.0.2.2"}, []string{a.Addrs()[0].String(), a.Addrs()[1].String()})
	assert.Equal(t, resolver.NXDomain, c.Lookup(ctx, "absent.resolver.test", resolver.TypeA).Outcome)

	var wg sync.WaitGroup
	outcomes := make([]resolver.Outcome, 50)
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "mx.resolver.test"
			if i%2 == 1 {
				name = "txt.resolver.test"
			}
			qt := resolver.TypeMX
			if i%2 == 1 {
				qt = resolver.TypeTXT
			}
			outcomes[i] = c.Lookup(ctx, name, qt).Outcome
		}()
	}
	wg.Wait()
	for i, o := range outcomes {
		assert.Equal(t, resolver.Found, o, "lookup %d", i)
	}
	assert.Equal(t, 1, srv.TLSConnections(), "one connection, reused")
	assert.Zero(t, srv.CountOver("", dnstest.AnyType, "udp")+srv.CountOver("", dnstest.AnyType, "tcp"), "nothing in clear")
	assert.Equal(t, 52, srv.CountOver("", dnstest.AnyType, "tls"))
}

// TestDoTNamedServer: a server named by its host name is verified
// against that name.
func TestDoTNamedServer(t *testing.T) {
	t.Parallel()
	srv, c := startDoT(t, "localhost")
	c.Servers = []string{"tls://localhost:" + portOf(t, c.Servers[0])}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA)
	require.Equal(t, resolver.Found, a.Outcome, show(a))
	assert.Equal(t, 1, srv.CountOver("a.resolver.test", resolver.TypeA, "tls"))
}

// TestDoTWrongCertificate: a server whose certificate is not valid for
// the address asked (another name), or is signed by a CA the client does
// not trust, is never asked: the lookup fails as from an unreachable
// server (the service's side), and no question reaches it.
func TestDoTWrongCertificate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, c := startDoT(t, "dns.other.test")
	a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.Inconclusive, a.Outcome)
	assert.Equal(t, resolver.ReasonNetwork, a.Reason, show(a))
	assert.Equal(t, resolver.SideService, a.Reason.Side())

	_, untrusted := startDoT(t, "127.0.0.1")
	untrusted.RootCAs = nil // the system roots do not know the test CA
	a = untrusted.Lookup(ctx, "a.resolver.test", resolver.TypeA)
	assert.Equal(t, resolver.ReasonNetwork, a.Reason, show(a))
	assert.Zero(t, srv.CountOver("", dnstest.AnyType, "tls"), "no question before the certificate verified")
}

// portOf returns the port of a "tls://host:port" address.
func portOf(t *testing.T, server string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(server, resolver.TLSPrefix))
	require.NoError(t, err)
	return port
}
