package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// nsChildEnv marks the run of TestServeOnEveryDefault inside the
// namespaces it made; its value is the parent's network namespace.
const nsChildEnv = "MAILAUTH_TEST_NS_CHILD"

// nsPublicAddr is the address the namespace's loopback interface gets
// besides 127.0.0.1: public to internal/ipclass (just past the shared
// range 100.64.0.0/10), so the MTA-STS fetch's guard lets serve reach it
// with no -allow-loopback-targets. The namespace has no other interface,
// so nothing sent to it leaves the namespace.
const nsPublicAddr = "100.128.0.1"

// nsDomain is the domain the namespace's scan checks; its policy host
// and MX host are nsPublicAddr.
const nsDomain = "defaults.example.com"

// nsZone serves nsDomain: an MX, an MTA-STS announcement and the policy
// host's address. Parse it after dnstest.RootZone, with origin ".".
const nsZone = `$ORIGIN example.com.
@                 SOA ns.example.com. hostmaster.example.com. 1 3600 600 86400 300
defaults          MX 10 mx.defaults
mx.defaults       A ` + nsPublicAddr + `
_mta-sts.defaults TXT "v=STSv1; id=20261128T000000"
mta-sts.defaults  A ` + nsPublicAddr + `
`

// nsPolicy is the policy served at mta-sts.<nsDomain>.
const nsPolicy = "version: STSv1\nmode: enforce\nmx: mx.defaults.example.com\nmax_age: 604800\n"

// goCertFiles is the list of crypto/x509's root_linux.go: Go reads the
// first of these files that exists as the system root bundle (unless
// SSL_CERT_FILE is set, which the child's environment never is).
var goCertFiles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// TestServeOnEveryDefault: serve with no flag at all (no -listen,
// -admin-listen, -dns, -https-port, -ca-file or -storage) resolves
// through the nameservers of /etc/resolv.conf, answers on its default
// addresses, keeps its analytics in the default SQLite file under the
// state directory (HOME is a directory of the test's), and fetches an
// MTA-STS policy over HTTPS on port 443 trusting the system root bundle. It runs the test again inside a network and mount
// namespace of its own (unshare; root needed), where /etc/resolv.conf is
// a file of the test's naming 127.0.0.1, a loopback resolver answers on
// port 53, the policy host is a public-looking address on the loopback
// interface with an HTTPS server on port 443, and the system bundle Go
// reads is bind-mounted over by a test CA that signed that server's
// certificate: nothing leaves the namespace. It takes 1.5–1.6 s, of which
// 0.42–0.53 s inside the namespaces (three runs of go test -race
// -count=1 -run TestServeOnEveryDefault -v ./cmd/mailauth/, load average
// 3.8–4.3 on 2 cores).
func TestServeOnEveryDefault(t *testing.T) {
	self, err := os.Readlink("/proc/self/ns/net")
	require.NoError(t, err)
	if parent := os.Getenv(nsChildEnv); parent != "" {
		require.NotEqual(t, parent, self, "the child runs in a network namespace of its own")
		serveOnEveryDefault(t)
		return
	}
	if err := exec.Command("unshare", "--net", "--mount", "true").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and unshare --net --mount fails (root needed): %v", err)
		}
		t.Skipf("unshare --net --mount fails (root needed): %v", err)
	}
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(conf, []byte("nameserver 127.0.0.1\n"), 0o644))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--mount", "sh", "-c",
		`ip link set lo up && mount --bind "$1" /etc/resolv.conf && shift && exec "$0" "$@"`,
		os.Args[0], conf, "-test.run", "^TestServeOnEveryDefault$", "-test.v", "-test.count=1")
	cmd.Env = append(envWithout(os.Environ(), "SSL_CERT_FILE", "SSL_CERT_DIR"), nsChildEnv+"="+self)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, pass, ok := strings.Cut(string(out), "--- PASS: TestServeOnEveryDefault")
	require.True(t, ok, "%s", out)
	t.Logf("in the namespaces: PASS%s", strings.SplitN(pass, "\n", 2)[0])
}

// envWithout returns env without the variables named.
func envWithout(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

func serveOnEveryDefault(t *testing.T) {
	requireLoopbackOnly(t)
	require.Empty(t, os.Getenv("SSL_CERT_FILE"), "Go reads its default bundle path, not SSL_CERT_FILE")
	require.Empty(t, os.Getenv("SSL_CERT_DIR"), "Go reads its default certificate directories, not SSL_CERT_DIR")
	z, err := dnstest.Parse(dnstest.RootZone+nsZone, ".")
	require.NoError(t, err)
	dnsSrv, err := dnstest.ListenAt(z, "127.0.0.1:53")
	require.NoError(t, err)
	defer dnsSrv.Close()
	fetches := startDefaultPolicyServer(t)

	home := t.TempDir()
	var log syncbuf.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	readyc, done := make(chan string, 1), make(chan int, 1)
	go func() {
		done <- runServe(ctx, nil, mapEnv(map[string]string{"HOME": home}), stdio{out: io.Discard, err: &log},
			serveHooks{ready: func(a string) { readyc <- a }})
	}()
	defer func() { cancel(); <-done }()
	select {
	case a := <-readyc:
		assert.Equal(t, defaultListen, a)
	case code := <-done:
		require.Failf(t, "serve exited", "exit %d: %s", code, log.String())
	}
	assert.Contains(t, log.String(), `"servers":["127.0.0.1:53"],"from":"/etc/resolv.conf"`, "the DNS servers came from /etc/resolv.conf")
	assert.NotContains(t, log.String(), "-ca-file is set", "no extra roots: the system bundle alone")
	assert.NotContains(t, log.String(), "-allow-loopback-targets is set", "the guard keeps refusing loopback")
	db := filepath.Join(home, ".local", "state", "mailauth", "analytics.db")
	assert.Contains(t, log.String(), `"storage":"sqlite:`+db+`"`, "the default store: SQLite under the state directory")
	requireDefaultReady(t, &log)
	assert.NotEmpty(t, dnsSrv.Queries(), "serve asked the resolver /etc/resolv.conf names")

	sts := scanMTASTS(t, &log)
	assert.Equal(t, "fetched", sts.PolicyFetchState, "the policy was fetched on port 443 with the system roots: %s", log.String())
	assert.Equal(t, true, sts.PolicyValid, "the fetched policy is valid")
	assert.Equal(t, "enforce", sts.PolicyMode, "the policy's mode came from the fetched text")
	assert.Equal(t, 604800, sts.MaxAge, "the policy's max_age came from the fetched text")
	assert.Equal(t, 1, sts.MXPatternCount, "the policy's one mx pattern came from the fetched text")
	assert.Positive(t, fetches.Load(), "the policy server on %s:443 was asked for the policy", nsPublicAddr)
}

// requireLoopbackOnly: the namespace has the loopback interface and
// nothing else, checked before any traffic.
func requireLoopbackOnly(t *testing.T) {
	ifs, err := net.Interfaces()
	require.NoError(t, err)
	names := make([]string, 0, len(ifs))
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	require.Equal(t, []string{"lo"}, names, "the child's network namespace has only its loopback interface")
}

// requireDefaultReady waits for /readyz on the default admin address and
// checks the resolver of /etc/resolv.conf answers.
func requireDefaultReady(t *testing.T, log *syncbuf.Buffer) {
	var body struct {
		Components map[string]string `json:"components"`
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + defaultAdminListen + "/readyz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&body) == nil
	}, time.Minute, 50*time.Millisecond, "readyz on the default admin address: %s", log.String())
	assert.Equal(t, "ok", body.Components["resolver"], "the resolver of /etc/resolv.conf answers: %s", log.String())
	assert.Equal(t, "ok", body.Components["analytics"], "the default SQLite store is open: %s", log.String())
}

// startDefaultPolicyServer puts nsPublicAddr on the loopback interface,
// serves nsPolicy over HTTPS on its port 443 with a certificate from a
// test CA, and bind-mounts that CA over the system bundle Go reads (in
// this mount namespace only). It returns the count of policy requests.
func startDefaultPolicyServer(t *testing.T) *atomic.Int64 {
	mustRun(t, "ip", "addr", "add", nsPublicAddr+"/32", "dev", "lo")
	host := "mta-sts." + nsDomain
	cert, _, caPEM := dnstest.TLSCertificate(t, host)
	trustOnlyInBundle(t, caPEM)
	ln, err := net.Listen("tcp", net.JoinHostPort(nsPublicAddr, "443"))
	require.NoError(t, err)
	var fetches atomic.Int64
	policies := testlab.PolicyHandler(map[string]string{host: nsPolicy})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		policies.ServeHTTP(w, r)
	}))
	require.NoError(t, srv.Listener.Close())
	srv.Listener = ln
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &fetches
}

// trustOnlyInBundle bind-mounts caPEM over the first file of goCertFiles
// that exists and checks the bundle now reads as caPEM.
func trustOnlyInBundle(t *testing.T, caPEM []byte) {
	bundle := ""
	for _, f := range goCertFiles {
		if _, err := os.Stat(f); err == nil {
			bundle = f
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			require.NoError(t, err)
		}
	}
	require.NotEmpty(t, bundle, "none of Go's system bundle files exists: %v", goCertFiles)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, caPEM, 0o644))
	mustRun(t, "mount", "--bind", ca, bundle)
	t.Cleanup(func() { mustRun(t, "umount", bundle) })
	got, err := os.ReadFile(bundle)
	require.NoError(t, err)
	require.True(t, bytes.Equal(caPEM, got), "%s reads as the test CA", bundle)
}

// mustRun runs a command and fails the test if it fails.
func mustRun(t *testing.T, name string, args ...string) {
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %v: %s", name, args, out)
}

// mtastsDiagnostics are the MTA-STS diagnostics of a scan (API contract,
// MtaStsDiagnostics).
type mtastsDiagnostics struct {
	PolicyFetchState string `json:"policyFetchState"`
	PolicyValid      bool   `json:"policyValid"`
	PolicyMode       string `json:"policyMode"`
	MaxAge           int    `json:"maxAge"`
	MXPatternCount   int    `json:"mxPatternCount"`
}

// scanMTASTS scans nsDomain on serve's default address and returns the
// diagnostics of its mta-sts check.
func scanMTASTS(t *testing.T, log *syncbuf.Buffer) mtastsDiagnostics {
	resp, err := http.Post("http://"+defaultListen+"/api/scan", "application/json",
		strings.NewReader(`{"domain":"`+nsDomain+`"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "scan: %s", log.String())
	var summary struct {
		Checks []struct {
			ID          string          `json:"id"`
			Diagnostics json.RawMessage `json:"diagnostics"`
		} `json:"checks"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&summary))
	for _, c := range summary.Checks {
		if c.ID == "mta-sts" {
			var d mtastsDiagnostics
			require.NoError(t, json.Unmarshal(c.Diagnostics, &d))
			return d
		}
	}
	require.Fail(t, "the scan has no mta-sts check")
	return mtastsDiagnostics{}
}
