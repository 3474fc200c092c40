package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

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
			if code != exitUnavailable || out != "" || !strings.Contains(errOut, "redirect not followed") {
				t.Errorf("%d %q: exit %d stdout %q stderr %q", status, args, code, out, errOut)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect target was requested %d times", n)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	srv := fixedAnswer(t, http.StatusOK, body)
	code, out, errOut := runCLI(t, nil, "scan", "-v", "-server", srv.URL, "example.com")
	if code != exitFail || errOut != "" {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if hasControl(out) {
		t.Errorf("report carries control characters:\n%q", out)
	}
	for _, s := range []string{"Overall \uFFFD[31mred", "        second \uFFFD line\n", "SPF\uFFFD: Soft fail"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	_, out, _ = runCLI(t, nil, "scan", "-json", "-server", srv.URL, "example.com")
	if hasControl(out) || !json.Valid([]byte(out)) {
		t.Errorf("-json output carries control characters or is not JSON:\n%q", out)
	}
	if got, err := decodeScanSummary([]byte(out)); err != nil || !reflect.DeepEqual(got.Checks[0].Summary, want.Checks[0].Summary) {
		t.Errorf("-json escapes changed the meaning: %v %q", err, got.Checks[0].Summary.EN)
	}
	for status, args := range map[int][]string{
		http.StatusBadRequest:          {"scan", "-server", "", "example.com"},
		http.StatusInternalServerError: {"ptr", "-server", "", "8.8.8.8"},
	} {
		bad := fixedAnswer(t, status, []byte(`{"error":"bad \u001b[2J\u001b]0;x\u0007 \u009b31m input"}`))
		args[2] = bad.URL
		_, _, errOut := runCLI(t, nil, args...)
		if hasControl(errOut) || !strings.Contains(errOut, "bad \uFFFD[2J") {
			t.Errorf("%d: error message %q", status, errOut)
		}
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
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
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
		if got := string(escapeJSONControls([]byte(in))); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
