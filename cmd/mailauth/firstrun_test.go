package main

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestVersion: -version prints the version and exits 0.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-version", "--version", "version"} {
		code, out, errOut := runCLI(t, nil, arg)
		if code != exitOK || !strings.HasPrefix(out, "mailauth ") || !strings.Contains(out, runtime.Version()) || errOut != "" {
			t.Errorf("%s: exit %d stdout %q stderr %q", arg, code, out, errOut)
		}
	}
}

func TestPageURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/",
		"0.0.0.0:80":     "http://127.0.0.1:80/",
		"[::]:8080":      "http://[::1]:8080/",
		"[::1]:8080":     "http://[::1]:8080/",
		"example.com:80": "http://example.com:80/",
	} {
		if got := pageURL(in); got != want {
			t.Errorf("pageURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestServeLogsPageAndDNS: serve logs the address to open and the DNS
// servers in use, and the page answers there.
func TestServeLogsPageAndDNS(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addrc := make(chan string, 1)
	var errOut syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-storage", "none", "-dns", "127.0.0.1:5353,[::1]:53"}, mapEnv(nil), stdio{out: io.Discard, err: &errOut},
			serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }, ready: func(a string) { addrc <- a }})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<html") {
		t.Errorf("GET /: %d", resp.StatusCode)
	}
	cancel()
	<-done
	log := errOut.String()
	for _, want := range []string{`"open":"http://` + addr + `/"`, `"msg":"DNS servers","servers":["127.0.0.1:5353","[::1]:53"],"from":"-dns"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}
