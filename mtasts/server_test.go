package mtasts

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testCA is a certificate authority made in the test, as mox's fakeCert
// does: nothing is read from disk.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// leaf issues a server certificate for names, valid from notBefore to
// notAfter.
func (ca *testCA) leaf(t testing.TB, names []string, notBefore, notAfter time.Time) *tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: names[0]},
		DNSNames:     names,
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// policyServer is a real HTTPS server on 127.0.0.1 and ::1 (same port)
// that serves the MTA-STS scenarios of testdata/mtasts.zone. The scenario
// is the label in the Host header: mta-sts.<label>.mtasts.test.
type policyServer struct {
	Port int
	CA   *testCA

	certs map[string]*tls.Certificate // by SNI, for the special scenarios
	valid *tls.Certificate            // for every other policy host
	mu    sync.Mutex
	hits  map[string]int
}

const zoneSuffix = ".mtasts.test"

// startPolicyServer starts the server; hosts are the policy host names
// the valid certificate names.
func startPolicyServer(t testing.TB, hosts []string) *policyServer {
	t.Helper()
	ca, rogue := newTestCA(t, "mailauth test CA"), newTestCA(t, "rogue CA")
	now := time.Now()
	s := &policyServer{CA: ca, hits: map[string]int{}}
	s.valid = ca.leaf(t, hosts, now.Add(-time.Hour), now.Add(time.Hour))
	s.certs = map[string]*tls.Certificate{
		"mta-sts.wrong-name" + zoneSuffix: ca.leaf(t, []string{"mtasts.test", "www.mtasts.test"}, now.Add(-time.Hour), now.Add(time.Hour)),
		"mta-sts.expired" + zoneSuffix:    ca.leaf(t, []string{"mta-sts.expired" + zoneSuffix}, now.Add(-48*time.Hour), now.Add(-24*time.Hour)),
		"mta-sts.untrusted" + zoneSuffix:  rogue.leaf(t, []string{"mta-sts.untrusted" + zoneSuffix}, now.Add(-time.Hour), now.Add(time.Hour)),
	}
	listeners := listenLoopbackPair(t)
	s.Port = listeners[0].Addr().(*net.TCPAddr).Port
	srv := &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		TLSConfig:         &tls.Config{GetCertificate: s.certificate},
		ReadHeaderTimeout: 30 * time.Second,           // it bounds the TLS handshake too: a bound on a hang, not on speed
		ErrorLog:          log.New(io.Discard, "", 0), // handshakes the client rejects are expected
	}
	for _, l := range listeners {
		go func() { _ = srv.ServeTLS(l, "", "") }()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return s
}

// listenLoopbackPair listens on the same free port on 127.0.0.1 and ::1.
func listenLoopbackPair(t testing.TB) []net.Listener {
	t.Helper()
	for try := 0; try < 20; try++ {
		l4, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := strconv.Itoa(l4.Addr().(*net.TCPAddr).Port)
		l6, err := net.Listen("tcp", net.JoinHostPort("::1", port))
		if err == nil {
			return []net.Listener{l4, l6}
		}
		l4.Close()
	}
	require.FailNow(t, "no port free on both 127.0.0.1 and ::1")
	return nil
}

// certificate returns the special certificate of a scenario, or the
// valid one that names every policy host of the zone.
func (s *policyServer) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c, ok := s.certs[hello.ServerName]; ok {
		return c, nil
	}
	return s.valid, nil
}

// Hits returns how many requests reached the scenario label.
func (s *policyServer) Hits(label string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[label]
}

// URL returns the policy URL of label on this server.
func (s *policyServer) URL(label string) string {
	return policyURL("mta-sts."+label+zoneSuffix, s.Port)
}

func (s *policyServer) serve(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	label := strings.TrimSuffix(strings.TrimPrefix(host, "mta-sts."), zoneSuffix)
	s.mu.Lock()
	s.hits[label]++
	s.mu.Unlock()
	if r.URL.Path != WellKnownPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	if h, ok := specialHandlers[label]; ok {
		h(s, w, r)
		return
	}
	writePolicy(w, "text/plain; charset=utf-8", readPolicyFile(label))
}

var specialHandlers = map[string]func(*policyServer, http.ResponseWriter, *http.Request){
	"crlf": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		writePolicy(w, "text/plain", strings.ReplaceAll(readPolicyFile("pass"), "\n", "\r\n"))
	},
	"no-final-newline": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		writePolicy(w, "text/plain", strings.TrimSuffix(readPolicyFile("pass"), "\n"))
	},
	"size-limit": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		writePolicy(w, "text/plain", padPolicy(readPolicyFile("pass"), MaxPolicySize))
	},
	"status-404": func(_ *policyServer, w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
	"status-500": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "oops", http.StatusInternalServerError)
	},
	"redirect": func(s *policyServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", s.URL("redirect-target"))
		w.WriteHeader(http.StatusMovedPermanently)
	},
	"html": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		writePolicy(w, "text/html; charset=utf-8", readPolicyFile("pass"))
	},
	"no-content-type": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = nil // no sniffing: send no Content-Type at all
		_, _ = io.WriteString(w, readPolicyFile("pass"))
	},
	"huge": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		body := padPolicy(readPolicyFile("pass"), 1<<20)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		writePolicy(w, "text/plain", body)
	},
	"huge-chunked": func(_ *policyServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("x-pad: 0123456789abcdef0123456789abcdef0123456789abcdef0123456\n", 64) // 4 KiB
		for i := 0; i < 256; i++ {                                                                      // 1 MiB
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	},
	"slow": func(_ *policyServer, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		writePolicy(w, "text/plain", readPolicyFile("pass"))
	},
}

func writePolicy(w http.ResponseWriter, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	_, _ = io.WriteString(w, body)
}

// readPolicyFile returns testdata/policies/<label>.txt, or pass.txt when
// the scenario has no file of its own.
func readPolicyFile(label string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "policies", label+".txt"))
	if err != nil {
		b, err = os.ReadFile(filepath.Join("testdata", "policies", "pass.txt"))
		if err != nil {
			panic(err)
		}
	}
	return string(b)
}

// padPolicy appends extension lines to policy until it is exactly size
// bytes long.
func padPolicy(policy string, size int) string {
	var b strings.Builder
	b.WriteString(policy)
	for n := 0; b.Len() < size; n++ {
		room := size - b.Len()
		line := fmt.Sprintf("x-pad%d: %s\n", n, strings.Repeat("p", 100))
		if room < 2*len(line) {
			line = "x: " + strings.Repeat("p", room-4) + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// recordingDialer sits beneath the address guard (Options.Dial). It records
// every address it is asked to dial and connects only to loopback
// addresses, and only when connect is set; anything else gets an error
// without a packet being sent. No test can reach outside loopback.
type recordingDialer struct {
	connect bool
	mu      sync.Mutex
	calls   []string
}

var errRefusedByTestDialer = errors.New("test dialer: not dialing")

func (d *recordingDialer) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.calls = append(d.calls, address)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().IsLoopback() || !d.connect || network != "tcp" {
		return nil, errRefusedByTestDialer
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, address)
}

func (d *recordingDialer) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}
