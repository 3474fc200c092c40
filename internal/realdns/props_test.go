package realdns_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/realdns"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// served is a running `mailauth serve` of these tests.
type served struct {
	base, admin string
	log         *syncbuf.Buffer
}

// serveAdmin starts `mailauth serve` (no storage, admin listener on a
// free port) with args and returns its addresses once both listen. It
// stops when the test ends.
func serveAdmin(t *testing.T, bin string, args ...string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0",
		"-storage", "none", "-rate-limit-max", "1000", "-dns-cache-mb", "0"}, args...)...)
	cmd.Env = []string{"LANG=C"}
	realdns.DieWithTest(cmd)
	pr, pw := io.Pipe()
	log := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = log, io.MultiWriter(log, pw)
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = pw.Close(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("serve log:\n%s", log.String())
		}
	})
	lines := make(chan struct{ msg, addr string }, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Addr != "" {
				lines <- struct{ msg, addr string }{line.Msg, line.Addr}
			}
		}
		close(lines)
		_, _ = io.Copy(io.Discard, pr)
	}()
	s := served{log: log}
	timeout := time.After(60 * time.Second)
	for s.base == "" || s.admin == "" {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "serve exited: %s", log.String())
			switch l.msg {
			case "listening":
				s.base = "http://" + l.addr
			case "admin listening":
				s.admin = "http://" + l.addr
			}
		case <-timeout:
			t.Fatalf("serve did not start: %s", log.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	return s
}

// readiness returns the /readyz status code and body of an admin URL.
func readiness(t *testing.T, admin string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(admin + "/readyz")
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

// exitCode runs the CLI and returns its exit status and output.
func exitCode(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"LANG=C"}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	require.NoError(t, err, "%s", out)
	return 0, string(out)
}

// TestResolverProperties: the lab's resolvers as mailauth finds them.
// The validating Unbound sets AD on the signed root's SOA; with no
// -canary-name (the root's NS set), serve is ready, and so says
// `mailauth healthcheck`; readiness says dnssec validating. An Unbound
// with validation off is not_validating (still ready), serve
// logs once that DNSSEC failures cannot be seen, and no verdict speaks
// of DNSSEC: the bogus domain is not called bogus, the signed one not
// called validated. Knot, authoritative only, given as -dns, stops
// serve at start with a clear message, and the CLI's scan exits 3
// saying why.
func TestResolverProperties(t *testing.T) {
	w := realdns.Start(t)
	bin := buildCLI(t)
	lab := []string{"-https-port", strconv.Itoa(w.HTTPSPort), "-ca-file", w.CAFile, "-allow-loopback-targets"}
	validating, plain := w.Resolver(t), w.NonValidatingResolver(t)

	root := ask(validating, ".", dns.TypeSOA, false)
	require.NoError(t, root.err)
	assert.True(t, root.msg.AuthenticatedData, "the validating resolver validates the signed root")
	assert.True(t, root.msg.RecursionAvailable)
	root = ask(plain, ".", dns.TypeSOA, false)
	require.NoError(t, root.err)
	assert.False(t, root.msg.AuthenticatedData, "validation off: no AD")

	t.Run("defaults", func(t *testing.T) {
		s := serveAdmin(t, bin, append([]string{"-dns", validating}, lab...)...)
		require.Eventually(t, func() bool { code, _ := readiness(t, s.admin); return code == http.StatusOK },
			60*time.Second, 100*time.Millisecond, "ready with no -canary-name")
		// Ready once the canary is answered; its probe of the resolver's
		// properties, a few seconds at most, may have run out on a loaded
		// machine and be made again with the next canary.
		require.Eventually(t, func() bool {
			_, body := readiness(t, s.admin)
			return body["components"].(map[string]any)["dnssec"] == "validating"
		}, 60*time.Second, 100*time.Millisecond, "validating")
		_, body := readiness(t, s.admin)
		assert.Equal(t, "ok", body["status"])
		assert.Equal(t, map[string]any{"resolver": "ok", "dnssec": "validating", "ratelimit": "ok", "analytics": "ok"}, body["components"])
		code, out := exitCode(t, bin, "healthcheck", "-admin", s.admin)
		assert.Equal(t, 0, code, out)
		status, res, _ := serviceScanInTime(t, s.base, realdns.Signed)
		require.Equal(t, http.StatusOK, status)
		checkResult(t, verdict{grade: "A", dnssec: true}, res)
	})

	t.Run("not validating", func(t *testing.T) {
		s := serveAdmin(t, bin, append([]string{"-dns", plain}, lab...)...)
		require.Eventually(t, func() bool { code, _ := readiness(t, s.admin); return code == http.StatusOK },
			60*time.Second, 100*time.Millisecond, "ready")
		require.Eventually(t, func() bool {
			_, body := readiness(t, s.admin)
			return body["components"].(map[string]any)["dnssec"] == "not_validating"
		}, 30*time.Second, 100*time.Millisecond)
		_, body := readiness(t, s.admin)
		assert.Equal(t, "ok", body["status"])
		assert.Equal(t, "ok", body["components"].(map[string]any)["resolver"])
		assert.Equal(t, 1, strings.Count(s.log.String(), "DNSSEC failures cannot be seen"), s.log.String())
		code, out := exitCode(t, bin, "healthcheck", "-admin", s.admin)
		assert.Equal(t, 0, code, "ready: %s", out)
		for _, domain := range []string{realdns.Signed, realdns.Bogus} {
			status, res, body := serviceScanInTime(t, s.base, domain)
			require.Equal(t, http.StatusOK, status, body)
			checkResult(t, verdict{dnssec: false}, res)
			assert.NotContains(t, body, "DNSSEC", "%s: no verdict speaks of DNSSEC", domain)
			// -timeout: a hang bound (the CLI's default 15 s is the
			// product's, which a loaded machine may spend).
			exit, cli, _ := cliScan(t, bin, append([]string{"-timeout", "2m", "-dns", plain}, append(lab, domain)...))
			assert.Contains(t, []int{0, 1}, exit)
			checkResult(t, verdict{dnssec: false}, cli)
			for _, c := range cli.Checks {
				assert.NotContains(t, c.Summary.EN+c.Details.EN, "DNSSEC", "cli %s: %s", domain, c.ID)
			}
		}
	})

	t.Run("authoritative only", func(t *testing.T) {
		refusedAtStart(t, bin, append([]string{"serve", "-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0",
			"-storage", "none", "-dns", w.Knot}, lab...))
		// A scan waits for the resolver's probe a quarter of its time (a
		// long -timeout: 30 s), and the probe is bounded by a few seconds:
		// a run that took that long may have gone on without knowing; it
		// does not count, and is made again.
		const probeBound = 5 * time.Second // the root package's propsTimeout
		for run := 0; ; run++ {
			require.Less(t, run, 10, "no run in which the resolver answered the scan's probe in time")
			start := time.Now()
			code, out := exitCode(t, bin, append([]string{"scan", "-timeout", "2m", "-dns", w.Knot}, append(lab, realdns.Signed)...)...)
			if time.Since(start) >= probeBound {
				t.Logf("run %d took %v: made again", run, time.Since(start))
				continue
			}
			assert.Equal(t, 3, code, out)
			assert.Contains(t, out, "does not offer recursion")
			return
		}
	})
}

// refusedAtStart runs `mailauth ARGS` (serve with an authoritative-only
// -dns) and checks that it stops at start, exit 2, saying why, before it
// listens. serve learns what the resolver does within a few seconds at
// start and otherwise starts, the resolver down until it answers: a run
// in which a loaded machine took longer, as its log says, does not
// count, is stopped, and is made again.
func refusedAtStart(t *testing.T, bin string, args []string) {
	t.Helper()
	const late = "the resolver did not answer at start"
	for run := 0; ; run++ {
		require.Less(t, run, 10, "no run in which the resolver answered serve's start check in time")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang bound
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = []string{"LANG=C"}
		realdns.DieWithTest(cmd)
		var log syncbuf.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
	wait:
		for {
			select {
			case err = <-done:
				break wait
			case <-time.After(50 * time.Millisecond):
				if strings.Contains(log.String(), `"msg":"listening"`) {
					cancel() // started: the check below says whether that may count
					err = <-done
					break wait
				}
			}
		}
		cancel()
		out := log.String()
		if strings.Contains(out, late) {
			t.Logf("run %d: %s; made again", run, late)
			continue
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "serve ended without an exit status: %s", out)
		assert.Equal(t, 2, ee.ExitCode(), out)
		assert.Contains(t, out, "does not offer recursion")
		assert.NotContains(t, out, `"msg":"listening"`, "refused before it listens")
		return
	}
}

// serviceScanInTime is serviceScan of domain, made again when the
// service answered that the scan ran out of time: the service's scan
// deadline is the product's (15 s), which a loaded machine may spend, and
// such a run does not count (the resolver's cache then holds what it
// learnt, so a later run needs less time).
func serviceScanInTime(t *testing.T, base, domain string) (int, result, string) {
	t.Helper()
	for run := 0; ; run++ {
		status, res, body := serviceScan(t, base, domain, "")
		if status != http.StatusInternalServerError || !strings.Contains(body, ranOutOfTime) || run == 9 {
			return status, res, body
		}
		t.Logf("run %d ran out of time: made again", run)
	}
}
