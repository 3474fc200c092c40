package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// startServe runs `mailauth serve` with args and env until the test ends
// (or stop is called) and returns its base URL, its stderr and stop,
// which waits for the exit code.
func startServe(t *testing.T, args []string, e map[string]string, hooks serveHooks) (base string, log *syncbuf.Buffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	hooks.ready = func(a string) { addrc <- a }
	log = &syncbuf.Buffer{}
	done := make(chan int, 1)
	go func() { done <- runServe(ctx, testAdmin(args), mapEnv(e), stdio{out: io.Discard, err: log}, hooks) }()
	select {
	case a := <-addrc:
		base = "http://" + a
	case code := <-done:
		cancel()
		require.Failf(t, "serve exited", "serve exited %d: %s", code, log.String())
	}
	code := -1
	stop = func() int {
		if code == -1 {
			cancel()
			code = <-done
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return base, log, stop
}

// healthStorage is the storage field of GET /api/health.
func healthStorage(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h struct{ Storage string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return h.Storage
}

// postJSON sends a diagnostic request and returns the status.
func postJSON(t *testing.T, base, path, body string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeDefaultSQLite: without -storage, serve opens SQLite under the
// state directory, says where, reports storage "ready", and at shutdown
// has written and rolled up every answered diagnostic.
func TestServeDefaultSQLite(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	base, log, stop := startServe(t, []string{"-listen", "127.0.0.1:0"}, map[string]string{"HOME": home},
		serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }})
	assert.Equal(t, "ready", healthStorage(t, base), "health storage")
	for _, r := range []struct{ path, body string }{{"/api/scan", `{"domain":"example.com"}`}, {"/api/ptr-check", `{"sendingIp":"8.8.8.8"}`}, {"/api/scan?utm_source=cli", `{"domain":"example.org"}`}} {
		require.Equal(t, 200, postJSON(t, base, r.path, r.body, nil), "%s", r.path)
	}
	require.Equal(t, exitOK, stop(), "exit: %s", log.String())
	path := filepath.Join(home, ".local", "state", "mailauth", "analytics.db")
	assert.Contains(t, log.String(), `"storage":"sqlite:`+path+`"`, "start-up log does not name the SQLite file")
	s, err := analytics.OpenSQLite(t.Context(), path)
	require.NoError(t, err)
	defer s.Close()
	day := analytics.Day(timeNow())
	rep, err := s.Report(t.Context(), day, day)
	assert.NoError(t, err, "report")
	if assert.Len(t, rep.Days, 1, "report %+v", rep) {
		assert.Equal(t, int64(2), rep.Days[0].Scans, "report %+v", rep)
		assert.Equal(t, int64(1), rep.Days[0].PtrChecks, "report %+v", rep)
		assert.Equal(t, int64(2), rep.Days[0].Domains, "report %+v", rep)
	}
	checkStatsCommand(t, map[string]string{"HOME": home}, day)
}

// checkStatsCommand runs `mailauth stats` (JSON and table) on the store
// TestServeDefaultSQLite filled: two scans (grade C each, one failed
// check: dmarc) and one ptr-check (ptr pass), sources direct 2, cli 1.
func checkStatsCommand(t *testing.T, e map[string]string, day string) {
	t.Helper()
	code, out, errOut := runCLI(t, e, "stats", "-json", "-days", "2")
	var rep analytics.Report
	err := json.Unmarshal([]byte(out), &rep)
	require.Equal(t, exitOK, code, "stats -json: %v %s", err, errOut)
	require.NoError(t, err, "stats -json: exit %d %s", code, errOut)
	assert.Equal(t, day, rep.To, "stats -json: %+v", rep)
	if assert.Len(t, rep.Days, 1, "stats -json: %+v", rep) {
		assert.Equal(t, int64(1), rep.Days[0].Visitors, "stats -json: %+v", rep)
	}
	assert.Equal(t, []analytics.Count{{Label: "direct", N: 2}, {Label: "cli", N: 1}}, rep.Sources, "stats -json: %+v", rep)
	code, out, _ = runCLI(t, e, "stats")
	for _, want := range []string{"Analytics ", day, "ptr-checks", "fail rate", "direct", "66.7%"} {
		assert.Equal(t, exitOK, code, "stats table lacks %q:\n%s", want, out)
		assert.Contains(t, out, want, "stats table lacks %q (exit %d)", want, code)
	}
	code, _, errOut = runCLI(t, map[string]string{"HOME": t.TempDir()}, "stats")
	assert.Equal(t, exitUnavailable, code, "stats without a store: %q", errOut)
	assert.Contains(t, errOut, "no analytics store", "stats without a store: exit %d", code)
}

// timeNow is the clock the service's records were dated by.
var timeNow = time.Now
