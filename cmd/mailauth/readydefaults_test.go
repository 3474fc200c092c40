package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestServeReadyOnDefaults: serve started with no -canary-name (the root,
// ".") and a loopback resolver that serves the root is ready: /readyz
// 200 with the resolver ok, and `mailauth healthcheck` exits 0.
func TestServeReadyOnDefaults(t *testing.T) {
	t.Parallel()
	z, err := dnstest.Parse(dnstest.RootZone, ".")
	require.NoError(t, err)
	dnsSrv := dnstest.Start(t, z)
	adminc := make(chan string, 1)
	_, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0",
		"-storage", "none", "-dns", dnsSrv.Addr()}, nil, serveHooks{admin: func(a string) { adminc <- a }})
	admin := "http://" + <-adminc
	require.Eventually(t, func() bool { code, _ := readyz(t, admin); return code == http.StatusOK },
		30*time.Second, 20*time.Millisecond, "readiness on the default canary: %s", log.String())
	_, body := readyz(t, admin)
	assert.Equal(t, "ok", body["components"].(map[string]any)["resolver"])
	code, out, errOut := runCLI(t, nil, "healthcheck", "-admin", admin)
	assert.Equal(t, exitOK, code, "healthcheck: %s", errOut)
	assert.Contains(t, out, `"resolver":"ok"`)
	code, _, errOut = runCLI(t, map[string]string{"MAILAUTH_ADMIN_LISTEN": admin[len("http://"):]}, "healthcheck")
	assert.Equal(t, exitOK, code, "healthcheck from MAILAUTH_ADMIN_LISTEN: %s", errOut)
}

// TestServeAdminPortTaken: an admin address that cannot be bound stops
// serve at start with a clear message and a non-zero exit.
func TestServeAdminPortTaken(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer held.Close()
	var log syncbuf.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	code := runServe(ctx, []string{"-listen", "127.0.0.1:0", "-admin-listen", held.Addr().String(), "-storage", "none"},
		mapEnv(nil), stdio{out: io.Discard, err: &log}, serveHooks{ready: func(string) { t.Error("serve listened although its admin address is taken") }})
	assert.Equal(t, exitUnavailable, code, log.String())
	assert.Contains(t, log.String(), "-admin-listen: cannot listen")
}

// TestHealthcheckOtherProgram: a program that answers 200 on the admin
// address but is not mailauth (no admin mark) is not taken for a ready
// service.
func TestHealthcheckOtherProgram(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"status":"ok","components":{}}`)
	}))
	defer other.Close()
	code, _, errOut := runCLI(t, nil, "healthcheck", "-admin", other.URL)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "not a mailauth admin listener")
}

// testAdmin puts the admin listener of a test's serve on a free port
// (a later -admin-listen in args wins): the default address is fixed,
// and serve refuses to start when it cannot bind it, so that tests
// running at once would stop each other.
func testAdmin(args []string) []string {
	return append([]string{"-admin-listen", "127.0.0.1:0"}, args...)
}

// startFlagsDNS serves DNS on loopback (UDP) answering every question
// NOERROR without data, with the RA and AD bits given: a recursive
// resolver that validates or not, or an authoritative-only server.
func startFlagsDNS(t *testing.T, ra, ad bool) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		m.RecursionAvailable, m.AuthenticatedData = ra, ad
		_ = w.WriteMsg(m)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String()
}

// TestServeRefusesAuthoritativeOnly: a -dns server whose replies do not
// offer recursion (an authoritative-only server) stops serve at start
// with a clear message, before it listens.
func TestServeRefusesAuthoritativeOnly(t *testing.T) {
	t.Parallel()
	// serve learns what the resolver does within a few seconds at start
	// (resolverCheckTimeout) and otherwise starts, the resolver down
	// until it answers: a run in which a loaded machine took longer, as
	// its log says, does not count, and is made again.
	for run := 0; ; run++ {
		require.Less(t, run, 10, "no run in which the resolver answered serve's start check in time")
		var log syncbuf.Buffer
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		code := runServe(ctx, testAdmin([]string{"-listen", "127.0.0.1:0", "-storage", "none", "-dns", startFlagsDNS(t, false, false)}),
			mapEnv(nil), stdio{out: io.Discard, err: &log}, serveHooks{ready: func(string) {
				if !strings.Contains(log.String(), "the resolver did not answer at start") {
					t.Error("serve listened with an authoritative-only resolver")
				}
				cancel()
			}})
		cancel()
		if strings.Contains(log.String(), "the resolver did not answer at start") {
			continue
		}
		assert.Equal(t, exitUsage, code, log.String())
		assert.Contains(t, log.String(), "does not offer recursion")
		assert.Contains(t, log.String(), "authoritative-only")
		return
	}
}

// TestServeReadinessDNSSEC: readiness names whether the resolver
// validates DNSSEC (dnssec: validating or not_validating; the status is
// ok either way), the metrics too (1 and 0.5), and a resolver that does
// not validate is logged once.
func TestServeReadinessDNSSEC(t *testing.T) {
	t.Parallel()
	for _, validating := range []bool{true, false} {
		adminc := make(chan string, 1)
		_, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0", "-storage", "none",
			"-dns", startFlagsDNS(t, true, validating)}, nil, serveHooks{admin: func(a string) { adminc <- a }})
		admin := "http://" + <-adminc
		require.Eventually(t, func() bool { code, _ := readyz(t, admin); return code == http.StatusOK },
			30*time.Second, 20*time.Millisecond, "ready: %s", log.String())
		_, body := readyz(t, admin)
		components := body["components"].(map[string]any)
		assert.Equal(t, "ok", components["resolver"])
		metrics := scrape(t, admin+"/metrics")
		if validating {
			assert.Equal(t, "ok", body["status"])
			assert.Equal(t, "validating", components["dnssec"])
			assert.Contains(t, metrics, `mailauth_ready{component="dnssec"} 1`)
			assert.NotContains(t, log.String(), "does not validate DNSSEC")
			continue
		}
		assert.Equal(t, "ok", body["status"])
		assert.Equal(t, "not_validating", components["dnssec"])
		assert.Contains(t, metrics, `mailauth_ready{component="dnssec"} 0.5`)
		assert.Equal(t, 1, strings.Count(log.String(), "does not validate DNSSEC: DNSSEC failures cannot be seen"), log.String())
	}
}

// TestScanRefusesAuthoritativeOnly: `mailauth scan` through a server
// that does not offer recursion exits 3 and says why.
func TestScanRefusesAuthoritativeOnly(t *testing.T) {
	t.Parallel()
	// A scan waits for the resolver's probe a quarter of its time (a long
	// -timeout: 30 s), and the probe is bounded by a few seconds
	// (propsTimeout): a run that took that long may have gone on without
	// knowing; it does not count, and is made again.
	const probeBound = 5 * time.Second // the root package's propsTimeout
	for run := 0; ; run++ {
		require.Less(t, run, 10, "no run in which the resolver answered the scan's probe in time")
		start := time.Now()
		code, _, errOut := runCLI(t, nil, "scan", "-timeout", "2m", "-dns", startFlagsDNS(t, false, false), "example.com")
		if time.Since(start) >= probeBound {
			continue
		}
		assert.Equal(t, exitUnavailable, code)
		assert.Contains(t, errOut, "does not offer recursion")
		return
	}
}

// TestServeAdminDefault: serve started with neither -listen nor
// -admin-listen answers the public on defaultListen (127.0.0.1:8080) and
// the operator on defaultAdminListen (127.0.0.1:8081), and healthcheck
// with no -admin and no MAILAUTH_ADMIN_LISTEN asks there and exits 0.
// Every other test of this package passes -listen and -admin-listen
// 127.0.0.1:0, and this one is not parallel, so that no test here takes
// the ports. When another program holds one, serve must refuse to start,
// saying why.
func TestServeAdminDefault(t *testing.T) {
	z, err := dnstest.Parse(dnstest.RootZone, ".")
	require.NoError(t, err)
	dnsSrv := dnstest.Start(t, z)
	args := []string{"-storage", "none", "-dns", dnsSrv.Addr()}
	for addr, flag := range map[string]string{defaultListen: "-listen", defaultAdminListen: "-admin-listen"} {
		probe, err := net.Listen("tcp", addr)
		if err == nil {
			probe.Close()
			continue
		}
		var log syncbuf.Buffer
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		code := runServe(ctx, args, mapEnv(nil), stdio{out: io.Discard, err: &log}, serveHooks{})
		assert.Equal(t, exitUnavailable, code, "another program holds %s: %s", addr, log.String())
		assert.Contains(t, log.String(), flag, "another program holds %s: the message names %s", addr, flag)
		return
	}
	// runServe itself, not startServe, which passes -admin-listen
	// 127.0.0.1:0 (testAdmin).
	var log syncbuf.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	adminc, readyc, done := make(chan string, 1), make(chan string, 1), make(chan int, 1)
	go func() {
		done <- runServe(ctx, args, mapEnv(nil), stdio{out: io.Discard, err: &log},
			serveHooks{admin: func(a string) { adminc <- a }, ready: func(a string) { readyc <- a }})
	}()
	defer func() { cancel(); <-done }()
	for _, want := range []struct {
		c    chan string
		addr string
	}{{adminc, defaultAdminListen}, {readyc, defaultListen}} {
		select {
		case a := <-want.c:
			assert.Equal(t, want.addr, a, "a default address")
		case code := <-done:
			require.Failf(t, "serve exited", "exit %d: %s", code, log.String())
		}
	}
	resp, err := http.Get("http://" + defaultListen + "/api/health")
	require.NoError(t, err, "the public listener on its default address")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Eventually(t, func() bool {
		code, _, _ := runCLI(t, nil, "healthcheck")
		return code == exitOK
	}, 30*time.Second, 50*time.Millisecond, "healthcheck on its default address: %s", log.String())
}
