// Package testlab runs the loopback world the scanner's end-to-end tests,
// examples and benchmarks scan: an authoritative DNS server (dnstest)
// serving zone files, and an HTTPS server with a certificate from a test
// CA made on the spot, serving MTA-STS policies by host name.
//
// Every address involved is 127.0.0.1: nothing here ever sends traffic
// off the machine (doc/design.md §5).
package testlab

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// Lab is a running DNS server and MTA-STS policy server.
type Lab struct {
	// DNS serves the zones.
	DNS *dnstest.Server
	// HTTPSPort is the port of the policy server on 127.0.0.1.
	HTTPSPort int
	// RootCAs trusts the test CA that signed the policy server's
	// certificate.
	RootCAs *x509.CertPool
	// CAPEM is that CA certificate in PEM, for programs that take a
	// -ca-file.
	CAPEM []byte
}

// Start serves the zone files and, for each "mta-sts.<domain>" key of
// policies, its policy text at /.well-known/mta-sts.txt over HTTPS with a
// certificate for that name. Everything stops when tb ends.
func Start(tb testing.TB, zoneFiles []string, policies map[string]string) *Lab {
	tb.Helper()
	lab := &Lab{DNS: dnstest.Start(tb, dnstest.MustLoad(tb, zoneFiles...))}
	if len(policies) == 0 {
		return lab
	}
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	cert, roots, caPEM := dnstest.TLSCertificate(tb, names...) // a test CA and a leaf for names
	srv := httptest.NewUnstartedServer(PolicyHandler(policies))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	lab.HTTPSPort, _ = strconv.Atoi(port)
	lab.RootCAs = roots
	lab.CAPEM = caPEM
	return lab
}

// PolicyHandler serves, for each "mta-sts.<domain>" key of policies, its
// policy text at /.well-known/mta-sts.txt as text/plain to requests for
// that host, and 404 to any other host or path.
func PolicyHandler(policies map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := strings.ToLower(r.Host)
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		body, ok := policies[host]
		if !ok || r.URL.Path != "/.well-known/mta-sts.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(body))
	})
}
