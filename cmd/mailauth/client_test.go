package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
)

// fixedAnswer serves one status and body on every request.
func fixedAnswer(t *testing.T, status int, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemoteNoRedirect: a service that redirects is "unavailable" (exit
// 3), and the redirect's target never receives the request.
func TestRemoteNoRedirect(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		httpapi.New(&fakeService{}, httpapi.Options{}).ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+r.URL.Path, status)
		}))
		t.Cleanup(redirector.Close)
		for _, args := range [][]string{
			{"scan", "-server", redirector.URL, "example.com"},
			{"ptr", "-json", "-server", redirector.URL, "8.8.8.8"},
		} {
			code, out, errOut := runCLI(t, nil, args...)
			const msg = "%d %q: exit %d stdout %q stderr %q"
			assert.Equal(t, exitUnavailable, code, msg, status, args, code, out, errOut)
			assert.Empty(t, out, msg, status, args, code, out, errOut)
			assert.Contains(t, errOut, "redirect not followed", msg, status, args, code, out, errOut)
		}
	}
	assert.Zero(t, hits.Load(), "the redirect target was requested")
}

// hostile is a summary whose remote texts try to drive the terminal: ESC
// sequences (colour, window title, screen clear), BEL, DEL, and the C1
// CSI (U+009B).
func hostileScan() mailauth.ScanSummary {
	s := sampleScan()
	s.Domain = "example.com"
	s.UnicodeDomain = "example.com"
	s.Summary.EN = "Overall \x1b[31mred\x1b[0m"
	s.Checks[0].Summary.EN = "two \x1b]0;pwned\x07 exchangers \u009b2J"
	s.Checks[0].Details.EN = "first\x1b[2J line\nsecond \x7f line"
	s.Checks[1].Title.EN = "SPF\u0085"
	s.Disclaimer.EN = "Info\x1b[5m only."
	return s
}

// hasControl reports whether s holds a C0 (other than newline), DEL or C1
// control character.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && (r < 0x20 || r >= 0x7f && r <= 0x9f) })
}

// TestRemoteControlCharacters: texts of a remote answer are printed
// without control characters, in the report (verbose too), in -json
// output (escaped, same meaning), and in a remote error message.
func TestRemoteControlCharacters(t *testing.T) {
	t.Parallel()
	want := hostileScan()
	body, err := httpapi.Encode(want)
	require.NoError(t, err)
	srv := fixedAnswer(t, http.StatusOK, body)
	code, out, errOut := runCLI(t, nil, "scan", "-v", "-server", srv.URL, "example.com")
	require.Equal(t, exitFail, code, "stderr %q", errOut)
	require.Empty(t, errOut, "exit %d", code)
	assert.False(t, hasControl(out), "report carries control characters:\n%q", out)
	for _, s := range []string{"Overall \uFFFD[31mred", "        second \uFFFD line\n", "SPF\uFFFD: Soft fail"} {
		assert.Contains(t, out, s, "report lacks %q", s)
	}
	_, out, _ = runCLI(t, nil, "scan", "-json", "-server", srv.URL, "example.com")
	assert.False(t, hasControl(out), "-json output carries control characters:\n%q", out)
	assert.True(t, json.Valid([]byte(out)), "-json output is not JSON:\n%q", out)
	got, err := decodeScanSummary([]byte(out))
	if assert.NoError(t, err, "-json escapes changed the meaning") {
		assert.Equal(t, want.Checks[0].Summary, got.Checks[0].Summary, "-json escapes changed the meaning")
	}
	for status, args := range map[int][]string{
		http.StatusBadRequest:          {"scan", "-server", "", "example.com"},
		http.StatusInternalServerError: {"ptr", "-server", "", "8.8.8.8"},
	} {
		bad := fixedAnswer(t, status, []byte(`{"error":"bad \u001b[2J\u001b]0;x\u0007 \u009b31m input"}`))
		args[2] = bad.URL
		_, _, errOut := runCLI(t, nil, args...)
		assert.False(t, hasControl(errOut), "%d: error message %q", status, errOut)
		assert.Contains(t, errOut, "bad \uFFFD[2J", "%d: error message", status)
	}
}

// TestCleanText: C0, DEL, C1 and invalid UTF-8 become U+FFFD; everything
// else, Chinese text included, is kept.
func TestCleanText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain 中文 text":  "plain 中文 text",
		"a\x1b[31mb":     "a\uFFFD[31mb",
		"tab\tnl\nbel\a": "tab\uFFFDnl\uFFFDbel\uFFFD",
		"del\x7f":        "del\uFFFD",
		"c1\u0080\u009b": "c1\uFFFD\uFFFD",
		"latin1 \u00a0é": "latin1 \u00a0é",
		"raw \x9b byte":  "raw \uFFFD byte",
		"":               "",
	} {
		assert.Equal(t, want, cleanText(in), "cleanText(%q)", in)
	}
}

// TestEscapeJSONControls: DEL, C1 and invalid UTF-8 in a JSON text
// become \u escapes; other answers are returned as they are.
func TestEscapeJSONControls(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":"x"}`:                 `{"a":"x"}`,
		"{\"a\":\"中\u009b\x7f\"}\n": "{\"a\":\"中\\u009b\\u007f\"}\n",
		"{\"a\":\"\x9b\"}":          `{"a":"\ufffd"}`,
		"{\"a\":\"\\u001b\"}":       "{\"a\":\"\\u001b\"}",
	} {
		assert.Equal(t, want, string(escapeJSONControls([]byte(in))), "%q", in)
	}
}
