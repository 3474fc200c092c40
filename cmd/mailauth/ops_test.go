package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/ops"
	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// scrape returns the body of a GET.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// startOps runs serve with a fake scanner and an admin listener on a free
// port; it returns the public and the admin base URLs and the log.
func startOps(t *testing.T, args ...string) (base, admin string, log *syncbuf.Buffer) {
	t.Helper()
	adminc := make(chan string, 1)
	args = append([]string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0"}, args...)
	base, log, _ = startServe(t, args, nil, serveHooks{
		service: func(mailauth.Config) httpapi.Service { return &fakeService{} },
		admin:   func(a string) { adminc <- a },
	})
	return base, "http://" + <-adminc, log
}

// readyz is the admin listener's readiness report and status code.
func readyz(t *testing.T, admin string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(admin + "/readyz")
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

// TestAdminReadiness: with a working resolver readiness is ok and names
// every component; with none answering it is down (503), the healthcheck
// subcommand exits 1, and the public API still answers its health.
func TestAdminReadiness(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	lab.DNS.SetValidating(false)
	_, admin, _ := startOps(t, "-storage", "none", "-dns", lab.DNS.Addr(), "-canary-name", "example.com")
	require.Eventually(t, func() bool { code, _ := readyz(t, admin); return code == 200 }, 20*time.Second, 20*time.Millisecond)
	_, body := readyz(t, admin)
	assert.Equal(t, "ok", body["status"], "a resolver that does not validate DNSSEC leaves the status ok")
	assert.Equal(t, map[string]any{"resolver": "ok", "dnssec": "not_validating", "ratelimit": "ok", "analytics": "ok"}, body["components"])
	assert.Contains(t, scrape(t, admin+"/livez"), `"ok"`)
	code, out, _ := runCLI(t, nil, "healthcheck", "-admin", admin)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, `"resolver":"ok"`)

	base, deadAdmin, _ := startOps(t, "-storage", "none", "-dns", "127.0.0.1:1", "-canary-name", "example.com")
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`mailauth_resolver_canary_failures_total [1-9]`).MatchString(scrape(t, deadAdmin+"/metrics"))
	}, 30*time.Second, 50*time.Millisecond, "the canary asked and failed")
	code, body = readyz(t, deadAdmin)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "down", body["status"])
	assert.Equal(t, "down", body["components"].(map[string]any)["resolver"])
	code, _, errOut := runCLI(t, nil, "healthcheck", "-admin", deadAdmin)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "not ready (503)")
	assert.Equal(t, "disabled", healthStorage(t, base), "the public health keeps the contract's shape")
	code, _, _ = runCLI(t, nil, "healthcheck", "-admin", "http://127.0.0.1:1")
	assert.Equal(t, exitFail, code, "no answer is not ready")
}

// TestHealthcheckUsageExit: a usage error exits 1, never 2 (Docker
// reserves a health check's exit status 2); -h still exits 0.
func TestHealthcheckUsageExit(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-no-such-flag"}, {"extra-argument"}} {
		code, _, errOut := runCLI(t, nil, append([]string{"healthcheck"}, args...)...)
		assert.Equal(t, exitFail, code, "%v: %s", args, errOut)
	}
	code, _, _ := runCLI(t, nil, "healthcheck", "-h")
	assert.Equal(t, exitOK, code)
}

// serveMetricNames are every series family serve registers
// (doc/operations.md, "Metrics"), besides go_* and process_*.
var serveMetricNames = []string{
	"mailauth_http_requests_total", "mailauth_http_request_duration_seconds",
	"mailauth_diagnostic_duration_seconds", "mailauth_checks_total",
	"mailauth_dns_inconclusive_total",
	"mailauth_ratelimit_decisions_total", "mailauth_ratelimit_degraded",
	"mailauth_ratelimit_fallback_decisions_total", "mailauth_ratelimit_store_outages_total",
	"mailauth_admissions_total", "mailauth_admission_wait_seconds",
	"mailauth_connections_open", "mailauth_connections_refused_total", "mailauth_connections_shed_total",
	"mailauth_analytics_queue_depth", "mailauth_analytics_rows_held", "mailauth_analytics_rows_committed_total",
	"mailauth_analytics_rows_failed_total", "mailauth_analytics_rows_dropped_total", "mailauth_analytics_ready",
	"mailauth_analytics_batch_seconds",
	"mailauth_leak_guard_replacements_total", "mailauth_leak_guard_full_total",
	"mailauth_dns_cache_hits_total", "mailauth_dns_cache_shared_total", "mailauth_dns_cache_misses_total",
	"mailauth_dns_cache_evictions_total", "mailauth_dns_cache_entries", "mailauth_dns_cache_bytes",
	"mailauth_resolver_canary_failures_total", "mailauth_ready", "mailauth_build_info",
	"mailauth_dns_spoof_drops_total",
}

// TestServeMetrics: after a scan of a lab domain whose DMARC name servers
// do not answer (SERVFAIL with EDE 22, No Reachable Authority), /metrics
// serves exactly the documented families (a new one must be added to the
// list and to doc/operations.md); the inconclusive answers are counted
// by reason and side, and the DMARC fail by the fault it was attributed
// to.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	lab.DNS.SetFault("_dmarc.good.example.com", resolver.TypeTXT, dnstest.ServFail.WithEDE(22))
	adminc := make(chan string, 1)
	base, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0",
		"-storage", "sqlite:" + filepath.Join(t.TempDir(), "a.db"),
		"-dns", lab.DNS.Addr(), "-canary-name", "example.com"}, nil, serveHooks{admin: func(a string) { adminc <- a }})
	admin := "http://" + <-adminc
	require.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"good.example.com"}`, nil), log.String())
	var metrics string
	require.Eventually(t, func() bool {
		// The analytics row is written in the background, and the
		// batch's duration is observed a moment after its rows are
		// counted: wait for both.
		metrics = scrape(t, admin+"/metrics")
		return strings.Contains(metrics, "mailauth_analytics_rows_committed_total 1") &&
			strings.Contains(metrics, `mailauth_analytics_batch_seconds_count{result="ok"} 1`)
	}, 20*time.Second, 20*time.Millisecond)
	var served []string
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (mailauth_[a-z_]+) `).FindAllStringSubmatch(metrics, -1) {
		served = append(served, m[1])
	}
	assert.ElementsMatch(t, serveMetricNames, served)
	for _, series := range []string{
		`mailauth_dns_inconclusive_total{reason="no_reachable_authority",side="domain"} `,
		`mailauth_checks_total{check="dmarc",determination="determined",dns_fault="no_answer",status="fail"} 1`,
		`mailauth_checks_total{check="spf",determination="determined",dns_fault="none",status="pass"} 1`,
		`mailauth_http_requests_total{code="200",route="/api/scan"} 1`,
		`mailauth_ratelimit_decisions_total{decision="allowed"} 1`,
		`mailauth_admissions_total{outcome="admitted"} 1`,
		`mailauth_analytics_batch_seconds_count{result="ok"} 1`,
		`mailauth_ready{component="resolver"}`,
		`mailauth_ready{component="ratelimit"} 1`,
		`mailauth_ready{component="analytics"} 1`,
		`mailauth_ratelimit_degraded 0`,
		`mailauth_connections_open `,
		`mailauth_dns_cache_misses_total `,
		`mailauth_dns_spoof_drops_total{kind="wrong_question"} `,
	} {
		assert.Contains(t, metrics, series)
	}
}

// TestAnalyticsRequiredReadiness: with -analytics-required, a store that
// cannot be opened makes readiness down (503; degraded without the flag,
// TestServeStoreFaultsAtStart) while scans still answer 200.
func TestAnalyticsRequiredReadiness(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a.db")
	require.NoError(t, os.Mkdir(dir, 0o700)) // a directory: never opens
	base, admin, log := startOps(t, "-storage", "sqlite:"+dir, "-analytics-secret", "0123456789abcdef", "-analytics-required")
	code, body := readyz(t, admin)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "down", body["status"])
	assert.Equal(t, "down", body["components"].(map[string]any)["analytics"])
	code, _, errOut := runCLI(t, nil, "healthcheck", "-admin", admin)
	assert.Equal(t, exitFail, code, errOut)
	assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil), log.String())
	assert.Equal(t, "unavailable", healthStorage(t, base))
}

// TestRateLimitFailClosed: with -ratelimit-fail-closed and Redis
// unreachable, diagnostics answer the contract's JSON 500 ("rate limiter
// temporarily unavailable") and readiness is down; the public health
// still answers.
func TestRateLimitFailClosed(t *testing.T) {
	t.Parallel()
	base, admin, log := startOps(t, "-storage", "none", "-ratelimit", "redis://127.0.0.1:1/0",
		"-analytics-secret", "0123456789abcdef", "-ratelimit-fail-closed")
	for _, path := range []string{"/api/scan", "/api/ptr-check"} {
		body := `{"domain":"example.com"}`
		if path == "/api/ptr-check" {
			body = `{"sendingIp":"192.0.2.1"}`
		}
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "%s: %s", path, log.String())
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), path)
		assert.JSONEq(t, `{"error":"rate limiter temporarily unavailable"}`, string(b), path)
	}
	code, body := readyz(t, admin)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "down", body["components"].(map[string]any)["ratelimit"])
	assert.Equal(t, "disabled", healthStorage(t, base))
	assert.Regexp(t, `mailauth_ratelimit_decisions_total\{decision="error"\} 2`, scrape(t, admin+"/metrics"))
}

// TestAdminNotOnPublicListener: the operator's endpoints are not served
// on the public listener.
func TestAdminNotOnPublicListener(t *testing.T) {
	t.Parallel()
	base, _, _ := startOps(t, "-storage", "none")
	for _, p := range []string{"/metrics", "/readyz", "/livez"} {
		resp, err := http.Get(base + p)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, p)
	}
}

// TestServeStoreFaultsAtStart: a store that cannot be opened at start
// (a SQLite path that is a directory, a FIFO or a read-only file; a
// PostgreSQL server that is down) no longer stops serve: scans answer
// 200, health says storage "unavailable" and readiness "degraded"; a
// malformed SQLite file is moved aside and a new one started (ready).
func TestServeStoreFaultsAtStart(t *testing.T) {
	t.Parallel()
	faults := map[string]func(t *testing.T, dir string) string{
		"directory": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "a.db")
			require.NoError(t, os.Mkdir(p, 0o700))
			return "sqlite:" + p
		},
		"fifo": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "a.db")
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			return "sqlite:" + p
		},
		"read-only": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "a.db")
			require.NoError(t, os.WriteFile(p, nil, 0o400))
			if os.Geteuid() == 0 { // root writes any mode
				out, err := exec.Command("chattr", "+i", p).CombinedOutput()
				require.NoError(t, err, "%s", out)
				t.Cleanup(func() { _ = exec.Command("chattr", "-i", p).Run() })
			}
			return "sqlite:" + p
		},
		"postgres down": func(t *testing.T, _ string) string { return pgtest.URLAt(pgtest.FreePort(t)) },
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base, admin, log := startOps(t, "-storage", fault(t, t.TempDir()), "-analytics-secret", "0123456789abcdef")
			assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil), log.String())
			assert.Equal(t, "unavailable", healthStorage(t, base))
			_, body := readyz(t, admin)
			assert.Equal(t, "degraded", body["components"].(map[string]any)["analytics"])
			assert.Equal(t, 1, strings.Count(log.String(), "analytics store unavailable"), log.String())
		})
	}
	t.Run("corrupt", func(t *testing.T) {
		t.Parallel()
		p := filepath.Join(t.TempDir(), "a.db")
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("garbage ", 4096)), 0o600))
		base, _, log := startOps(t, "-storage", "sqlite:"+p)
		assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
		assert.Equal(t, "ready", healthStorage(t, base))
		assert.Contains(t, log.String(), "moved aside")
		aside, _ := filepath.Glob(p + ".corrupt-*")
		assert.Len(t, aside, 1)
	})
}

// TestServeHealthWhileInsertsFail: with PostgreSQL stopped under a
// running serve, scans keep answering 200 and health turns "unavailable"
// (the writer's failed batches and the background ping), answered from
// the cached state.
func TestServeHealthWhileInsertsFail(t *testing.T) {
	t.Parallel()
	cluster := pgtest.Start(t)
	base, admin, log := startOps(t, "-storage", cluster.NewDatabase(t, "inserts"))
	require.Equal(t, "ready", healthStorage(t, base))
	cluster.Stop()
	require.Eventually(t, func() bool {
		return postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil) == 200 && healthStorage(t, base) == "unavailable"
	}, 60*time.Second, 200*time.Millisecond, log.String())
	_, body := readyz(t, admin)
	assert.Equal(t, "degraded", body["components"].(map[string]any)["analytics"])
	metrics := scrape(t, admin+"/metrics")
	assert.Contains(t, metrics, "mailauth_analytics_ready 0")
}

// TestServeSIGHUP: SIGHUP is logged and serve keeps answering.
func TestServeSIGHUP(t *testing.T) {
	base, _, log := startOps(t, "-storage", "none")
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "SIGHUP received") }, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
}

// TestServeSIGHUPAtStart: a SIGHUP while serve still waits for Redis at
// start (a server that accepts and never answers: the 2 s ping) is
// logged, not fatal; serve then starts and answers. Before, the handler
// was installed after that wait and the signal killed the process (and
// this test binary).
func TestServeSIGHUPAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept() // the Redis ping has dialled: serve is starting
		if err != nil {
			return
		}
		defer c.Close()
		_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
		_, _ = io.Copy(io.Discard, c) // never answer
	}()
	base, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-storage", "none", "-admin-listen", "none",
		"-ratelimit", "redis://" + ln.Addr().String() + "/0", "-analytics-secret", "0123456789abcdef"}, nil,
		serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }})
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "SIGHUP received") }, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
}

// TestServeSIGHUPAtShutdown: a SIGHUP while serve, stopped, still
// flushes its analytics (the writer is held in its commit) is logged, not
// fatal. Before, the handler was removed before that flush and the signal
// killed the process (and this test binary).
func TestServeSIGHUPAtShutdown(t *testing.T) {
	release := make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before startServe's stop, should a check below fail
	held := make(chan struct{})
	var once sync.Once
	base, log, stop := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "none",
		"-storage", "sqlite:" + filepath.Join(t.TempDir(), "a.db")}, nil,
		serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} },
			commits: func(int64) { once.Do(func() { close(held); <-release }) }})
	require.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
	done := make(chan int, 1)
	go func() { done <- stop() }()
	require.Eventually(t, func() bool { return strings.Contains(log.String(), `"msg":"stopped"`) }, 30*time.Second, 10*time.Millisecond)
	// Stopped, and the writer held in its commit: serve's final flush
	// (the analytics' close, after "stopped") cannot end before free.
	select {
	case <-held:
	case <-time.After(30 * time.Second): // a bound on a hang
		t.Fatal("the scan's row never reached a commit")
	}
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "SIGHUP received") }, 30*time.Second, 10*time.Millisecond)
	free()
	assert.Equal(t, exitOK, <-done)
}

// TestSDNotify: READY=1 reaches the socket of $NOTIFY_SOCKET once serve
// listens.
func TestSDNotify(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := listenUnixgram(sock)
	require.NoError(t, err)
	defer conn.Close()
	_, _, _ = startServe(t, []string{"-listen", "127.0.0.1:0", "-storage", "none", "-admin-listen", "none"},
		map[string]string{"NOTIFY_SOCKET": sock}, serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }})
	buf := make([]byte, 64)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	n, err := conn.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "READY=1", string(buf[:n]))
}

// listenUnixgram opens a datagram socket at path (systemd's side).
func listenUnixgram(path string) (*net.UnixConn, error) {
	return net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
}

// TestLimiterReadiness: a Redis store unreachable at start makes the
// rate-limit component degraded (per-instance fallback), or down with
// -ratelimit-fail-closed; memory is always ok.
func TestLimiterReadiness(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		rateLimit  string
		failClosed bool
		want       ops.State
	}{
		{"memory", false, ops.StateOK},
		{"redis://127.0.0.1:1/0", false, ops.StateDegraded},
		{"redis://127.0.0.1:1/0", true, ops.StateDown},
	} {
		c := serveConfig{rateLimit: tc.rateLimit, rateLimitMax: 5, failClosed: tc.failClosed}
		l, err := openLimiter(t.Context(), c, []byte("0123456789abcdef"), logger, nil)
		require.NoError(t, err)
		assert.Equal(t, tc.want, l.state(), "%s fail-closed=%v", tc.rateLimit, tc.failClosed)
		_, err = l.limiter.Allow(t.Context(), "192.0.2.1")
		assert.Equal(t, tc.failClosed, err != nil, "only fail-closed refuses")
		l.close()
	}
}

// TestServeHealthWhileSQLiteInsertsFail: the store answers its ping (a
// read) but refuses every insert (a trigger stands in for a full disk or
// another writer): health turns "unavailable" once an insert failed,
// and scans keep answering 200.
func TestServeHealthWhileSQLiteInsertsFail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	base, _, log := startOps(t, "-storage", "sqlite:"+path)
	require.Equal(t, "ready", healthStorage(t, base))
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	outage := time.Now() // before the first refused insert
	_, err = db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`)
	require.NoError(t, err)
	require.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
	require.Eventually(t, func() bool { return healthStorage(t, base) == "unavailable" }, 30*time.Second, 50*time.Millisecond, log.String())
	assert.Equal(t, 200, postJSON(t, base, "/api/scan", `{"domain":"example.com"}`, nil))
	// The writer turns unhealthy, then logs, on its own goroutine: health
	// may say so before the record is written.
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "batch not stored") }, 30*time.Second, 10*time.Millisecond)
	// One record, not one per batch or retry; a second only once the
	// first is failureLogEvery old, which a loaded machine may reach
	// before this count: the time only loosens the bound.
	elapsed := time.Since(outage)
	assert.LessOrEqual(t, strings.Count(log.String(), "batch not stored"), 1+int(elapsed/failureLogEvery),
		"one record (the outage %v long), not one per batch: %s", elapsed, log.String())
}

// failureLogEvery is the analytics writer's spacing of its records of
// failed batches: "at most once per 10 s" (doc/operations.md).
const failureLogEvery = 10 * time.Second
