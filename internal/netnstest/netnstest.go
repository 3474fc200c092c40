//go:build linux

// Package netnstest runs a test in a network namespace of its own, for
// tests that need addresses, routes or kernel settings other than the
// host's loopback: the test binary runs the test again as a child
// process in a new namespace, where nothing leaves the namespace.
package netnstest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// env tells the child process which test it runs and in which namespace
// its parent was: "<test name>@<the parent's /proc/self/ns/net>".
const env = "MAILAUTH_TEST_NETNS"

// Enter reports whether t runs in a network namespace of its own, set
// up by ip(8) with each of setup, and should go on. If not, it runs t
// again in this test binary, as a child process in a new network
// namespace (which needs root), logs its output, fails t if the child
// failed or did not run it, skips t if the child skipped it, and
// reports false; it skips t where the namespace cannot be made (no
// ip(8), not root). The child goes on only in another namespace than
// its parent's, so an inherited environment never runs the setup in the
// caller's namespace; a setup command that fails fails t there.
func Enter(t *testing.T, setup [][]string) bool {
	t.Helper()
	if want, ok := strings.CutPrefix(os.Getenv(env), t.Name()+"@"); ok && want != "" {
		here, err := namespace()
		if err != nil || here == want {
			t.Fatalf("%s names this test, but it is not in a network namespace of its own (%s, %v)", env, here, err)
		}
		for _, args := range setup {
			out, err := exec.Command("ip", args...).CombinedOutput()
			if err != nil {
				t.Fatalf("ip %v: %v: %s", args, err, out)
			}
		}
		return true
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip(8)")
	}
	here, err := namespace()
	if err != nil {
		t.Skipf("cannot tell this process's network namespace: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name()+"@"+here)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("a network namespace needs root: %v", err)
	}
	t.Logf("in its own network namespace:\n%s", out)
	switch {
	case err != nil:
		t.Fatalf("failed in its network namespace: %v", err)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name()+" ")):
		t.Skip("skipped in its network namespace")
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" ")):
		t.Fatal("did not run in its network namespace")
	}
	return false
}

// namespace returns this process's network namespace, as the link
// /proc/self/ns/net reads ("net:[4026531840]").
func namespace() (string, error) {
	return os.Readlink("/proc/self/ns/net")
}

// runPattern is the -test.run pattern that selects the test named name
// alone, a subtest's parts each matched whole.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
