//go:build linux

// Package netnstest runs a test in a network namespace of its own, for
// tests that need addresses, routes or kernel settings other than the
// host's loopback: the test binary runs the test again as a child
// process in a new namespace, where nothing leaves the namespace.
package netnstest

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// env names the test that runs, in a child process, in a network
// namespace of its own.
const env = "MAILAUTH_TEST_NETNS"

// Enter reports whether t runs in a network namespace of its own, set
// up by ip(8) with each of setup, and should go on. If not, it runs t
// again in this test binary, as a child process in a new network
// namespace (which needs root), logs its output, fails t if it failed,
// and reports false; it skips t where that cannot be done (no ip(8), not
// root). A setup command that fails in the namespace fails t there.
func Enter(t *testing.T, setup [][]string) bool {
	t.Helper()
	if os.Getenv(env) != t.Name() {
		if _, err := exec.LookPath("ip"); err != nil {
			t.Skip("needs ip(8)")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), env+"="+t.Name())
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("a network namespace needs root: %v", err)
		}
		t.Logf("in its own network namespace:\n%s", out)
		if err != nil {
			t.Fatalf("failed in its network namespace: %v", err)
		}
		return false
	}
	for _, args := range setup {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	return true
}
