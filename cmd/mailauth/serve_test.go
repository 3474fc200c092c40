package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
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
	var errOut syncBuilder
	done := make(chan int, 1)
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0"}, mapEnv(nil), stdio{out: io.Discard, err: &errOut},
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
// message; a busy port exits 3.
func TestServeStartupErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-storage", "sqlite:/tmp/x.db"}, exitUsage, "sqlite store is not implemented yet"},
		{[]string{"-storage", "postgres://db/x"}, exitUsage, "postgres store is not implemented yet"},
		{[]string{"-ratelimit", "redis://%zz"}, exitUsage, "-ratelimit"},
		{[]string{"-listen", "192.0.2.1:1"}, exitUnavailable, "mailauth serve:"},
	} {
		var errOut syncBuilder
		code := runServe(t.Context(), tc.args, mapEnv(nil), stdio{out: io.Discard, err: &errOut}, serveHooks{})
		if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, errOut.String())
		}
	}
}

// syncBuilder is a strings.Builder safe for concurrent writes.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestScannerAlarmsLogCountsOnly: the scanner's internal-fault hooks write
// one error record each, with a count or a check id and nothing else.
func TestScannerAlarmsLogCountsOnly(t *testing.T) {
	var buf bytes.Buffer
	onLeak, onPanic := scannerAlarms(slog.New(slog.NewJSONHandler(&buf, nil)))
	onLeak(2)
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
