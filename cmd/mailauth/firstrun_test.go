package main

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestVersion: -version prints the version and exits 0.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-version", "--version", "version"} {
		code, out, errOut := runCLI(t, nil, arg)
		const msg = "%s: exit %d stdout %q stderr %q"
		assert.Equal(t, exitOK, code, msg, arg, code, out, errOut)
		assert.True(t, strings.HasPrefix(out, "mailauth "), msg, arg, code, out, errOut)
		assert.Contains(t, out, runtime.Version(), msg, arg, code, out, errOut)
		assert.Empty(t, errOut, msg, arg, code, out, errOut)
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
		assert.Equal(t, want, pageURL(in), "pageURL(%q)", in)
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
		done <- runServe(ctx, testAdmin([]string{"-listen", "127.0.0.1:0", "-storage", "none", "-dns", "127.0.0.1:5353,[::1]:53"}), mapEnv(nil), stdio{out: io.Discard, err: &errOut},
			serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }, ready: func(a string) { addrc <- a }})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		require.Failf(t, "serve exited", "serve exited %d: %s", code, errOut.String())
	}
	resp, err := http.Get("http://" + addr + "/")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "GET /")
	assert.Contains(t, string(b), "<html", "GET /: %d", resp.StatusCode)
	cancel()
	<-done
	log := errOut.String()
	for _, want := range []string{`"open":"http://` + addr + `/"`, `"msg":"DNS servers","servers":["127.0.0.1:5353","[::1]:53"],"from":"-dns"`} {
		assert.Contains(t, log, want, "log lacks %s", want)
	}
}
