package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// docBaseURL is the base URL the documentation's examples name (the
// default address of `mailauth serve`).
const docBaseURL = "http://127.0.0.1:8080"

// cliExample is one documented command line.
type cliExample struct {
	where string
	words []string
}

// docCommandLines are the lines of code blocks that run mailauth: a
// comment after " #" and a pipe into another program are cut off.
func docCommandLines(where string, blocks []string) []cliExample {
	var out []cliExample
	for _, block := range blocks {
		for _, l := range strings.Split(block, "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
			if !strings.HasPrefix(l, "mailauth ") {
				continue
			}
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i]
			}
			if i := strings.Index(l, " | "); i >= 0 {
				l = l[:i]
			}
			out = append(out, cliExample{where: where, words: strings.Fields(l)})
		}
	}
	return out
}

// cliPageBlocks are the <pre><code> blocks of /developers/cli/.
func cliPageBlocks(t *testing.T) []string {
	t.Helper()
	srv := httptest.NewServer(httpapi.New(&fakeService{}, httpapi.Options{}))
	defer srv.Close()
	// Asked for at the documented origin: the page's examples name the
	// origin that served it (docBaseURL here), which labArgs replaces.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/developers/cli/", nil)
	require.NoError(t, err)
	req.Host = strings.TrimPrefix(docBaseURL, "http://")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	require.NoError(t, err)
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "code" && n.Parent != nil && n.Parent.Data == "pre" {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			out = append(out, b.String())
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// readmeBlocks are README.md's indented code blocks.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var out, cur []string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "    "):
			cur = append(cur, strings.TrimPrefix(l, "    "))
		case strings.TrimSpace(l) != "" && len(cur) > 0:
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// notRun are the subcommands whose examples the test does not run, and
// why.
var notRun = map[string]string{
	"serve": "runs until stopped (its -h form is run; the test's own serve answers the healthcheck examples)",
}

// docAdminURL is the admin listener the documentation's healthcheck
// examples name (the default -admin-listen).
const docAdminURL = "http://" + defaultAdminListen

// opsArgs rewrites a documented healthcheck or stats command line to run
// against what the test started: the documented admin URL becomes the
// test's admin listener, and the -storage of stats (whatever store it
// names, the PostgreSQL one too) becomes the test's SQLite store, which a
// stats without -storage finds at its default path under HOME.
func opsArgs(args []string, admin, store string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], docAdminURL, admin)
		if len(out) > 0 && out[0] == "stats" && out[i] == "-storage" && i+1 < len(out) {
			out[i+1] = "sqlite:" + store
		}
	}
	return out
}

// startDocOps starts what the healthcheck and stats examples need: a
// serve whose admin listener is ready (over the lab's DNS), and an empty
// analytics store at the default path under home. It returns the admin
// base URL and the store's path.
func startDocOps(t *testing.T, dns, home string) (admin, store string) {
	t.Helper()
	_, admin, _ = startOps(t, "-storage", "none", "-dns", dns, "-canary-name", "example.com")
	require.Eventually(t, func() bool { code, _ := readyz(t, admin); return code == http.StatusOK }, 20*time.Second, 20*time.Millisecond, "the test's admin listener gets ready")
	store = filepath.Join(home, ".local", "state", "mailauth", "analytics.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(store), 0o700))
	s, err := analytics.OpenSQLite(t.Context(), store)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	return admin, store
}

// labArgs rewrites a documented command line to run against the loopback
// lab: a local scan or ptr gets the lab flags (and any -dns of the
// example points at the lab's server instead), spf-eval gets -dns, and
// the documented base URL becomes the lab service's.
func labArgs(words []string, dns string, labFlags []string, service string) []string {
	args := append([]string(nil), words[1:]...)
	remote := false
	for i := range args {
		if strings.Contains(args[i], docBaseURL) {
			args[i] = strings.ReplaceAll(args[i], docBaseURL, service)
			remote = true
		}
		if args[i] == "-dns" && i+1 < len(args) {
			args[i+1] = dns
		}
	}
	if len(args) == 0 || remote {
		return args
	}
	var extra []string
	switch args[0] {
	case "scan", "ptr":
		extra = append([]string{"-dns", dns}, labFlags...)
	case "spf-eval":
		extra = []string{"-dns", dns}
	default:
		return args
	}
	return append(append([]string{args[0]}, extra...), args[1:]...)
}

// TestDocumentedCommandLines runs every mailauth command line of
// /developers/cli/ and README.md with the built binary, against the
// loopback lab (the lab flags added, the documented base URL replaced by
// an in-process service over the lab): each must not be refused as a
// usage or input error (exit 2) or fail on the service or DNS (exit 3).
// So no example uses an address the API rejects. The healthcheck examples
// ask the admin listener of a serve the test starts, and the stats
// examples read an empty SQLite store the test creates: both must exit 0.
func TestDocumentedCommandLines(t *testing.T) {
	examples := docCommandLines("/developers/cli/", cliPageBlocks(t))
	examples = append(examples, docCommandLines("README.md", readmeBlocks(t))...)
	require.GreaterOrEqual(t, len(examples), 10, "the documentation shows at least ten command lines")

	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, map[string]string{
		"mta-sts.good.example.com": "version: STSv1\nmode: enforce\nmx: mx1.good.example.com\nmax_age: 604800\n",
	})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, lab.CAPEM, 0o600))
	labFlags := []string{"-https-port", strconv.Itoa(lab.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets"}
	scanner := mailauth.New(mailauth.Config{
		Resolver:  &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: dnstest.PatientTimeout, Attempts: 1}, // a bound on a hang, not on speed
		HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
	})
	service := httptest.NewServer(httpapi.New(scanner, httpapi.Options{}))
	t.Cleanup(service.Close)
	home := t.TempDir()
	admin, store := startDocOps(t, lab.DNS.Addr(), home)

	bin := filepath.Join(t.TempDir(), "mailauth")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	ran := 0
	opsRun := map[string]int{}
	for _, ex := range examples {
		if len(ex.words) < 2 {
			continue
		}
		if why, skip := notRun[ex.words[1]]; skip && !(ex.words[1] == "serve" && len(ex.words) == 3 && ex.words[2] == "-h") {
			t.Logf("%s: not run (%s): %s", ex.where, why, strings.Join(ex.words, " "))
			continue
		}
		args := opsArgs(labArgs(ex.words, lab.DNS.Addr(), labFlags, service.URL), admin, store)
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"HOME=" + cmd.Dir, "PATH=/usr/bin:/bin"}
		mustSucceed := args[0] == "healthcheck" || args[0] == "stats"
		if mustSucceed {
			cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "MAILAUTH_ADMIN_LISTEN=" + strings.TrimPrefix(admin, "http://")}
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		ran++
		if mustSucceed {
			opsRun[args[0]]++
			assert.Equal(t, exitOK, code, "%s: %s (run as %q) exits %d: %s%s", ex.where,
				strings.Join(ex.words, " "), args, code, stderr.String(), truncate(stdout.String()))
			continue
		}
		// A scanned result: 0, 1, or 4 for a placeholder name the lab's
		// zone does not have (mail.example.com).
		assert.Contains(t, []int{exitOK, exitFail, exitNonexistent}, code, "%s: %s (run as %q) exits %d: %s%s", ex.where,
			strings.Join(ex.words, " "), args, code, stderr.String(), truncate(stdout.String()))
	}
	assert.GreaterOrEqual(t, ran, 10, "command lines run")
	assert.Positive(t, opsRun["healthcheck"], "healthcheck examples run")
	assert.GreaterOrEqual(t, opsRun["stats"], 2, "stats examples run")
}

// truncate keeps the start of a long output for a failure message.
func truncate(s string) string {
	const keep = 400
	if len(s) > keep {
		return s[:keep] + "…"
	}
	return s
}
