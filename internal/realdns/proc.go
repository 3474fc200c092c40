package realdns

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testport"
)

// Programs are the executables the world runs, each from a Debian package
// (unbound; knot; nsd; ldnsutils).
var Programs = []string{"unbound", "knotd", "nsd", "ldns-keygen", "ldns-signzone"}

// Need looks up each program on PATH (and in /usr/sbin, where Debian puts
// the servers). When one is missing the test fails if CI=true and skips
// otherwise.
func Need(tb testing.TB, programs ...string) {
	tb.Helper()
	var missing []string
	for _, p := range programs {
		if _, err := lookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("missing %s (apt-get install unbound knot nsd ldnsutils; scripts/test does it)", strings.Join(missing, ", "))
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// lookPath finds a program on PATH or in the system directories that a
// non-root PATH often leaves out.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := dir + "/" + name
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", name)
}

// run runs a short program (a key or signing tool) in dir and fails the
// test when it does not succeed. It returns the standard output.
func run(tb testing.TB, dir, name string, args ...string) string {
	tb.Helper()
	path, err := lookPath(name)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// daemon starts a long-running server in the foreground, logs its output
// when the test fails, and stops it (SIGTERM, then SIGKILL after 5 s) when
// the test ends. Only the process started here is ever signalled.
func daemon(tb testing.TB, name string, args ...string) {
	tb.Helper()
	path, err := lookPath(name)
	if err != nil {
		tb.Fatal(err)
	}
	var log syncbuf.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &log, &log
	DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if tb.Failed() {
			tb.Logf("%s output:\n%s", name, tail(log.String(), 4000))
		}
	})
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// freePort returns a port of 127.0.0.1 for a daemon to bind, free for
// both UDP and TCP a moment ago and out of the way of port-0 binds
// (testport.Daemon).
func freePort(tb testing.TB) int {
	tb.Helper()
	return testport.Daemon(tb)
}

// waitAnswer asks addr for the SOA of zone until an answer (any rcode)
// comes back ([Exchange]: however late, within a hang bound): the server
// is up.
func waitAnswer(tb testing.TB, addr, zone string) {
	tb.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(zone), dns.TypeSOA)
	if _, err := Exchange(addr, m); err != nil {
		tb.Fatalf("no answer from %s for %s: %v", addr, zone, err)
	}
}

// writeFile writes text to path and fails the test on error.
func writeFile(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
}
