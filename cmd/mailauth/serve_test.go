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
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		done <- runServe(ctx, testAdmin([]string{"-listen", "127.0.0.1:0", "-storage", "none"}), mapEnv(nil), stdio{out: io.Discard, err: &errOut},
			serveHooks{service: func(mailauth.Config) httpapi.Service { return svc }, ready: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case code := <-done:
		require.Failf(t, "serve exited", "serve exited %d: %s", code, errOut.String())
	}
	resp, err := http.Get(base + "/api/health")
	require.NoError(t, err, "health")
	require.Equal(t, 200, resp.StatusCode, "health: %v", resp)
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
	assert.Equal(t, 200, <-scanDone, "scan in flight during shutdown")
	assert.Equal(t, exitOK, <-done, "serve exit: %s", errOut.String())
	_, err = http.Get(base + "/api/health")
	assert.Error(t, err, "still serving after shutdown")
	log := errOut.String()
	for _, want := range []string{`"msg":"listening"`, `"msg":"shutting down"`, `"msg":"stopped"`, `"path":"/api/scan","status":200`} {
		assert.Contains(t, log, want, "log lacks %s", want)
	}
	assert.NotContains(t, log, "example.com", "log names the domain")
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
		code := runServe(t.Context(), testAdmin(tc.args), mapEnv(nil), stdio{out: io.Discard, err: &errOut}, serveHooks{})
		assert.Equal(t, tc.code, code, "%q: stderr %q", tc.args, errOut.String())
		assert.Contains(t, errOut.String(), tc.msg, "%q: exit %d", tc.args, code)
		assert.NotContains(t, errOut.String(), "hunter2", "%q: exit %d", tc.args, code)
	}
}

// TestScannerAlarmsLogCountsOnly: the scanner's internal-fault hooks write
// one error record each, with a count or a check id and nothing else.
func TestScannerAlarmsLogCountsOnly(t *testing.T) {
	var buf bytes.Buffer
	onLeak, onPanic := scannerAlarms(slog.New(slog.NewJSONHandler(&buf, nil)), time.Now)
	onLeak("192.0.2.7", 2)
	onLeak("192.0.2.7", 1) // within leakAlarmEvery: counted, not logged
	onLeak("192.0.2.7", 1)
	onPanic(mailauth.CheckSPF)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, "log = %q", buf.String())
	require.Contains(t, lines[0], `"checks":2`, "log = %q", buf.String())
	require.Contains(t, lines[1], `"check":"spf"`, "log = %q", buf.String())
	for _, l := range lines {
		assert.Contains(t, l, `"level":"ERROR"`, "not an error record")
	}
	assert.NotContains(t, buf.String(), "192.0.2", "a source in the log")
}

// TestLeakAlarmsPerSource: a source that raises alarms all the time does
// not hold back another source's first alarm; the records carry the
// count of the alarms held back, from any source, and never a source;
// the sources remembered are bounded and swept.
func TestLeakAlarmsPerSource(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	a := newLeakAlarms(slog.New(slog.NewJSONHandler(&buf, nil)), func() time.Time { return clock })
	records := func() []string {
		s := strings.TrimSpace(buf.String())
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
	for range 50 {
		a.alarm("2001:db8:bad::/64", 1) // the hostile zone's source
	}
	require.Len(t, records(), 1, "one record a minute for one source")
	a.alarm("192.0.2.7", 3) // a genuine alarm from another source
	got := records()
	require.Len(t, got, 2, "the other source's alarm is logged at once")
	assert.Contains(t, got[1], `"checks":3`)
	assert.Contains(t, got[1], `"suppressed":49`, "the aggregate count of held-back alarms")

	clock = clock.Add(leakAlarmEvery)
	a.alarm("2001:db8:bad::/64", 1)
	got = records()
	require.Len(t, got, 3, "a minute later the hostile source is logged again")
	assert.Contains(t, got[2], `"suppressed":0`)

	// Bounded: past leakAlarmSources remembered sources, a new source is
	// held back until the sweep frees room.
	for i := range leakAlarmSources {
		a.alarm(fmt.Sprintf("198.51.%d.%d", i/256, i%256), 1)
	}
	assert.Len(t, a.last, leakAlarmSources)
	n := len(records())
	a.alarm("203.0.113.1", 1)
	assert.Len(t, records(), n, "a new source past the bound is held back")
	clock = clock.Add(leakAlarmEvery)
	a.alarm("203.0.113.1", 1)
	assert.Len(t, records(), n+1, "logged once the sweep freed room")
	assert.Len(t, a.last, 1, "the sweep forgot the sources a minute old")
	for _, ip := range []string{"2001:db8", "192.0.2", "198.51", "203.0.113"} {
		assert.NotContains(t, buf.String(), ip, "a source in the log")
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
	code := runServe(ctx, testAdmin(args), mapEnv(e), stdio{out: io.Discard, err: &errOut}, serveHooks{
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
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lab CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "lab-ca.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
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
			require.Equal(t, exitOK, code, "exit: %s", log)
			assert.Len(t, warnLines(log, "loopback"), tc.loopback, "loopback warnings:\n%s", log)
			assert.Len(t, warnLines(log, "-ca-file"), tc.caWarn, "-ca-file warnings:\n%s", log)
			assert.NotContains(t, log, ca, "log names the CA file")
		})
	}
}

// TestServeRedisURLNotEchoed: an unparsable -ratelimit URL is refused
// with a fixed message naming the flag, never the URL or its password.
func TestServeRedisURLNotEchoed(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"redis://admin:hunter2@%zz:6379/0", "rediss://:hunter2@cache.example:notaport", "redis://u:hunter2@cache.example:6379/notadb"} {
		var errOut syncbuf.Buffer
		code := runServe(t.Context(), testAdmin([]string{"-listen", "127.0.0.1:0", "-storage", "none", "-analytics-secret", "0123456789abcdef", "-ratelimit", u}), mapEnv(nil), stdio{out: io.Discard, err: &errOut}, serveHooks{})
		out := errOut.String()
		assert.Equal(t, exitUsage, code, "%s: stderr %q", u, out)
		assert.Contains(t, out, "-ratelimit", "%s: exit %d", u, code)
		assert.NotContains(t, out, "hunter2", "stderr echoes the URL")
		assert.NotContains(t, out, "cache.example", "stderr echoes the URL")
		assert.NotContains(t, out, "%zz", "stderr echoes the URL")
	}
}
