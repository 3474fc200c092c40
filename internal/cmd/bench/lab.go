package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// lab is the loopback world: the DNS server of the generated zones and
// an HTTPS server for every mta-sts.<domain>, with a certificate per host
// from a CA made on the spot. Everything listens on 127.0.0.1.
type lab struct {
	dns     *dnstest.Server
	https   *http.Server
	port    int
	roots   *x509.CertPool
	caPEM   []byte // the CA certificate, for the service process
	domains []domain
}

// startLab generates n domains and serves them.
func startLab(n int) (*lab, error) {
	text, domains := world(n)
	z, err := dnstest.Parse(text, ".")
	if err != nil {
		return nil, fmt.Errorf("bench zones: %w", err)
	}
	srv, err := dnstest.Listen(z)
	if err != nil {
		return nil, err
	}
	srv.KeepLog(false)
	l := &lab{dns: srv, domains: domains}
	if err := l.startHTTPS(); err != nil {
		srv.Close()
		return nil, err
	}
	return l, nil
}

func (l *lab) close() {
	l.dns.Close()
	_ = l.https.Close()
}

// startHTTPS serves each domain's MTA-STS policy by host name.
func (l *lab) startHTTPS() error {
	policies := make(map[string]string, len(l.domains))
	for _, d := range l.domains {
		policies["mta-sts."+d.name] = d.policy
	}
	ca, err := newCA()
	if err != nil {
		return err
	}
	l.roots = x509.NewCertPool()
	l.roots.AddCert(ca.cert)
	l.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	for host := range policies { // mint every certificate before measuring
		if _, err := ca.certFor(&tls.ClientHelloInfo{ServerName: host}); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bench https: %w", err)
	}
	l.port = ln.Addr().(*net.TCPAddr).Port
	l.https = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			body, ok := policies[strings.ToLower(host)]
			if !ok || r.URL.Path != "/.well-known/mta-sts.txt" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte(body))
		}),
		TLSConfig:         &tls.Config{GetCertificate: ca.certFor, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 5 * time.Second,
		// Handshakes the fetch abandons at its deadline under overload are
		// counted by the scans' figures; the log would only repeat them.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go func() { _ = l.https.ServeTLS(ln, "", "") }()
	return nil
}

// ca issues leaf certificates on demand, one per host name, cached.
type ca struct {
	cert  *x509.Certificate
	key   *ecdsa.PrivateKey
	mu    sync.Mutex
	leafs map[string]*tls.Certificate
	leaf  *ecdsa.PrivateKey
}

func newCA() (*ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leaf, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailauth bench CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &ca{cert: cert, key: key, leaf: leaf, leafs: map[string]*tls.Certificate{}}, nil
}

// certFor returns the certificate of the requested server name.
func (c *ca) certFor(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := strings.ToLower(hello.ServerName)
	if name == "" {
		return nil, errors.New("bench https: no server name")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if crt, ok := c.leafs[name]; ok {
		return crt, nil
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(int64(len(c.leafs) + 2)), Subject: pkix.Name{CommonName: name},
		DNSNames: []string{name}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &c.leaf.PublicKey, c.key)
	if err != nil {
		return nil, err
	}
	crt := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: c.leaf}
	c.leafs[name] = crt
	return crt, nil
}
