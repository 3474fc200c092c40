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
	go func() { done <- runServe(ctx, args, mapEnv(e), stdio{out: io.Discard, err: log}, hooks) }()
	select {
	case a := <-addrc:
		base = "http://" + a
	case code := <-done:
		cancel()
		t.Fatalf("serve exited %d: %s", code, log.String())
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
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Storage string }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
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
	if s := healthStorage(t, base); s != "ready" {
		t.Errorf("health storage %q, want ready", s)
	}
	for _, r := range []struct{ path, body string }{{"/api/scan", `{"domain":"example.com"}`}, {"/api/ptr-check", `{"sendingIp":"8.8.8.8"}`}, {"/api/scan?utm_source=cli", `{"domain":"example.org"}`}} {
		if code := postJSON(t, base, r.path, r.body, nil); code != 200 {
			t.Fatalf("%s: %d", r.path, code)
		}
	}
	if code := stop(); code != exitOK {
		t.Fatalf("exit %d: %s", code, log.String())
	}
	path := filepath.Join(home, ".local", "state", "mailauth", "analytics.db")
	if !strings.Contains(log.String(), `"storage":"sqlite:`+path+`"`) {
		t.Errorf("start-up log does not name the SQLite file:\n%s", log.String())
	}
	s, err := analytics.OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	day := analytics.Day(timeNow())
	rep, err := s.Report(t.Context(), day, day)
	if err != nil || len(rep.Days) != 1 || rep.Days[0].Scans != 2 || rep.Days[0].PtrChecks != 1 || rep.Days[0].Domains != 2 {
		t.Errorf("report %+v %v", rep, err)
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
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil {
		t.Fatalf("stats -json: exit %d %v %s", code, err, errOut)
	}
	if rep.To != day || len(rep.Days) != 1 || rep.Days[0].Visitors != 1 || len(rep.Sources) != 2 ||
		rep.Sources[0] != (analytics.Count{Label: "direct", N: 2}) || rep.Sources[1] != (analytics.Count{Label: "cli", N: 1}) {
		t.Errorf("stats -json: %+v", rep)
	}
	code, out, _ = runCLI(t, e, "stats")
	for _, want := range []string{"Analytics ", day, "ptr-checks", "fail rate", "direct", "66.7%"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("stats table lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	if code, _, errOut := runCLI(t, map[string]string{"HOME": t.TempDir()}, "stats"); code != exitUnavailable || !strings.Contains(errOut, "no analytics store") {
		t.Errorf("stats without a store: exit %d %q", code, errOut)
	}
}

// timeNow is the clock the service's records were dated by.
var timeNow = time.Now
