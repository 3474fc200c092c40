package dnstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver"
)

// TLSCertificate makes a test CA and a server certificate it signs for
// hosts (DNS names or IP addresses), valid for a day. It returns the
// certificate, a pool that trusts the CA (for resolver.Client.RootCAs)
// and the CA certificate in PEM (for a -ca-file).
func TLSCertificate(tb testing.TB, hosts ...string) (tls.Certificate, *x509.CertPool, []byte) {
	tb.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dnstest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			leaf.IPAddresses = append(leaf.IPAddresses, a.AsSlice())
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}, pool,
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// ServeTLS serves the zones over DNS over TLS (RFC 7858) too, with cert,
// on a port of its own on 127.0.0.1, until Close. It returns the address
// as a resolver.Client takes it: "tls://127.0.0.1:port". Questions asked
// over it are logged with the network "tls".
func (s *Server) ServeTLS(cert tls.Certificate) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("dnstest: listen tls: %w", err)
	}
	tl := tls.NewListener(countListener{ln, &s.dotConns}, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	srv := &dns.Server{Listener: tl, Net: "tcp-tls", Handler: s.handler("tls")}
	started := make(chan error, 1)
	srv.NotifyStartedFunc = func() { started <- nil }
	go func() {
		if err := srv.ActivateAndServe(); err != nil {
			started <- err
		}
	}()
	if err := <-started; err != nil {
		return "", fmt.Errorf("dnstest: serve tls: %w", err)
	}
	s.dotMu.Lock()
	s.dot = append(s.dot, srv)
	s.dotMu.Unlock()
	return resolver.TLSPrefix + ln.Addr().String(), nil
}

// TLSConnections returns how many DNS-over-TLS connections the server
// accepted so far.
func (s *Server) TLSConnections() int { return int(s.dotConns.Load()) }

// countListener counts the connections it accepts.
type countListener struct {
	net.Listener
	n interface{ Add(int64) int64 }
}

func (l countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}
