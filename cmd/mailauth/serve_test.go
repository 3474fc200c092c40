package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestServeGracefulShutdown runs `mailauth serve` on a loopback port,
// checks health, starts a slow scan, then cancels (as SIGTERM does): the
// scan in flight still gets its 200 and serve exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	svc := &fakeService{delay: 500 * time.Millisecond}
	addrc := make(chan string, 1)
	var errOut syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-storage", "none"}, mapEnv(nil), stdio{out: io.Discard, err: &errOut},
			serveHooks{service: func(mailauth.Config) httpapi.Service { return svc }, ready: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	resp, err := http.Get(base + "/api/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	scanDone := make(chan int, 1)
	go func() {
		resp, err := http.Post(base+"/api/scan", "application/json", strings.NewReader(`{"domain":"example.com"}`))
		if err != nil {
			scanDone <- -1
			return
		}
		resp.Body.Close()
		scanDone <- resp.StatusCode
	}()
	for svc.calls.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if code := <-scanDone; code != 200 {
		t.Errorf("scan in flight during shutdown: %d", code)
	}
	if code := <-done; code != exitOK {
		t.Errorf("serve exit %d: %s", code, errOut.String())
	}
	if _, err := http.Get(base + "/api/health"); err == nil {
		t.Error("still serving after shutdown")
	}
	log := errOut.String()
	for _, want := range []string{`"msg":"listening"`, `"msg":"shutting down"`, `"msg":"stopped"`, `"path":"/api/scan","status":200`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "example.com") {
		t.Errorf("log names the domain:\n%s", log)
	}
}

// TestServeStartupErrors: configuration errors exit 2 with a clear
// message; a busy port exits 3. (A store that cannot be opened is no
// start-up error: TestServeStoreFaultsAtStart.)
func TestServeStartupErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-storage", "none", "-ratelimit", "redis://%zz", "-analytics-secret", "0123456789abcdef"}, exitUsage, "-ratelimit"},
		{[]string{"-storage", "none", "-ratelimit", "redis://127.0.0.1:1"}, exitUsage, "needs -analytics-secret"},
		{[]string{"-storage", "none", "-analytics-secret", "short"}, exitUsage, "at least 16 bytes"},
		{[]string{"-storage", "none", "-listen", "192.0.2.1:1"}, exitUnavailable, "mailauth serve:"},
	} {
		var errOut syncbuf.Buffer
		code := runServe(t.Context(), tc.args, mapEnv(nil), stdio{out: io.Discard, err: &errOut}, serveHooks{})
		if code != tc.code || !strings.Contains(errOut.String(), tc.msg) || strings.Contains(errOut.String(), "hunter2") {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, errOut.String())
		}
	}
}

// TestScannerAlarmsLogCountsOnly: the scanner's internal-fault hooks write
// one error record each, with a count or a check id and nothing else.
func TestScannerAlarmsLogCountsOnly(t *testing.T) {
	var buf bytes.Buffer
	onLeak, onPanic := scannerAlarms(slog.New(slog.NewJSONHandler(&buf, nil)))
	onLeak(2)
	onLeak(1) // within leakAlarmEvery: counted, not logged
	onLeak(1)
	onPanic(mailauth.CheckSPF)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"checks":2`) || !strings.Contains(lines[1], `"check":"spf"`) {
		t.Fatalf("log = %q", buf.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, `"level":"ERROR"`) {
			t.Errorf("not an error record: %s", l)
		}
	}
}

// serveOnce runs `mailauth serve` on a loopback port with a fake service,
// stops it as soon as it listens, and returns its exit code and stderr.
func serveOnce(t *testing.T, args []string, e map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var errOut syncbuf.Buffer
	args = append([]string{"-listen", "127.0.0.1:0", "-storage", "none"}, args...)
	code := runServe(ctx, args, mapEnv(e), stdio{out: io.Discard, err: &errOut}, serveHooks{
		service: func(mailauth.Config) httpapi.Service { return &fakeService{} },
		ready:   func(string) { cancel() },
	})
	return code, errOut.String()
}

// writeTestCA writes a self-signed CA certificate as PEM and returns the
// file's path.
func writeTestCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lab CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lab-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// warnLines returns the WARN records of a JSON log that contain substr.
func warnLines(log, substr string) []string {
	var out []string
	for l := range strings.SplitSeq(log, "\n") {
		if strings.Contains(l, `"level":"WARN"`) && strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestServeWarnsLabFlags: -allow-loopback-targets (flag or environment)
// and -ca-file each log exactly one WARN at start-up; without them there
// is none. The CA file's path is not logged.
func TestServeWarnsLabFlags(t *testing.T) {
	t.Parallel()
	ca := writeTestCA(t)
	for _, tc := range []struct {
		name             string
		args             []string
		env              map[string]string
		loopback, caWarn int
	}{
		{"none", nil, nil, 0, 0},
		{"loopback flag", []string{"-allow-loopback-targets"}, nil, 1, 0},
		{"loopback env", nil, map[string]string{"MAILAUTH_ALLOW_LOOPBACK_TARGETS": "true"}, 1, 0},
		{"ca file", []string{"-ca-file", ca}, nil, 0, 1},
		{"both via env", nil, map[string]string{"MAILAUTH_ALLOW_LOOPBACK_TARGETS": "1", "MAILAUTH_CA_FILE": ca}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, log := serveOnce(t, tc.args, tc.env)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, log)
			}
			if n := len(warnLines(log, "loopback")); n != tc.loopback {
				t.Errorf("%d loopback warnings, want %d:\n%s", n, tc.loopback, log)
			}
			if n := len(warnLines(log, "-ca-file")); n != tc.caWarn {
				t.Errorf("%d -ca-file warnings, want %d:\n%s", n, tc.caWarn, log)
			}
			if strings.Contains(log, ca) {
				t.Errorf("log names the CA file:\n%s", log)
			}
		})
	}
}

// TestServeRedisURLNotEchoed: an unparsable -ratelimit URL is refused
// with a fixed message naming the flag, never the URL or its password.
func TestServeRedisURLNotEchoed(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"redis://admin:hunter2@%zz:6379/0", "rediss://:hunter2@cache.example:notaport", "redis://u:hunter2@cache.example:6379/notadb"} {
		var errOut syncbuf.Buffer
		code := runServe(t.Context(), []string{"-listen", "127.0.0.1:0", "-storage", "none", "-analytics-secret", "0123456789abcdef", "-ratelimit", u}, mapEnv(nil), stdio{out: io.Discard, err: &errOut}, serveHooks{})
		out := errOut.String()
		if code != exitUsage || !strings.Contains(out, "-ratelimit") {
			t.Errorf("%s: exit %d, stderr %q", u, code, out)
		}
		if strings.Contains(out, "hunter2") || strings.Contains(out, "cache.example") || strings.Contains(out, "%zz") {
			t.Errorf("stderr echoes the URL: %q", out)
		}
	}
}
