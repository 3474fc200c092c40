package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSmoke builds the abuse harness and runs its attack mode briefly on
// loopback (2 hostile sources, 1 s unloaded, 2 s under attack), then its
// first siege (2 s, 2 s of recovery watch): it must exit 0, report the
// well-behaved client's figures, every hostile kind it ran, the server's
// resources and its RSS after the siege. Its thresholds are not asserted
// here (they are measured on a quiet machine, RELIABILITY.md); that the
// harness runs and reports is.
func TestSmoke(t *testing.T) {
	bin := buildAbuse(t)
	run := exec.Command(bin, "-mode", "attack", "-hostile", "2", "-unloaded", "1s", "-attack", "2s")
	run.Dir = filepath.Join("..", "..", "..") // the zone path is relative to the module root
	out, err := run.CombinedOutput()
	require.NoError(t, err, "abuse: %s", out)
	report := string(out)
	assert.Regexp(t, regexp.MustCompile(`unloaded\s+n\s+[1-9]\d*\s+success`), report, "unloaded figures")
	assert.Regexp(t, regexp.MustCompile(`attack\s+n\s+[1-9]\d*\s+success`), report, "figures under attack")
	assert.Contains(t, report, "success under attack")
	assert.Regexp(t, regexp.MustCompile(`p99 under attack / unloaded: \d+\.\d\d \(target <= 2, 95 % bootstrap interval \d+\.\d\d-\d+\.\d\d\)`), report, "the ratio with its interval")
	assert.Contains(t, report, "== server resources (attack)")
	assert.Regexp(t, regexp.MustCompile(`(?m)^\s+slow\s+\d+\s+\d{3}`), report, "the slow sources' answers")

	// One siege, briefly, with a short recovery watch: the server's RSS
	// after it is reported against the baseline.
	run = exec.Command(bin, "-mode", "siege", "-skip", "slow-ipv6,non-reading", "-unloaded", "1s", "-attack", "2s", "-recover", "2s", "-sample", "1s")
	run.Dir = filepath.Join("..", "..", "..")
	out, err = run.CombinedOutput()
	require.NoError(t, err, "abuse siege: %s", out)
	report = string(out)
	assert.Regexp(t, regexp.MustCompile(`slow-ipv4: 30 addresses x 3 slow scans\s+n\s+[1-9]\d*\s+success`), report, "figures under the siege")
	assert.Regexp(t, regexp.MustCompile(`(?m)^slow-ipv4: [^\n]*: success [^\n]* p99 \d+\.\d\d x unloaded \(<= 2; 95 % bootstrap interval \d+\.\d\d-\d+\.\d\d\): (NOT )?MET`), report, "the siege's verdict with the ratio's interval")
	assert.Regexp(t, regexp.MustCompile(`slow-ipv4: [^\n]*, 2s later \d+ KB: \d+\.\d\d x baseline`), report, "RSS after the siege")
	// What the attack delivered, and its process at SCHED_IDLE, every
	// thread of it, while the measured client's stays at the normal
	// policy. In 2 s every slow scan may still hold a slot (none
	// answered yet): the line's shape is checked, not its counts.
	assert.Regexp(t, regexp.MustCompile(`(?m)^slow-ipv4: in \d+s: \d+ requests answered .* threads by policy: idle [1-9]\d*$`), report, "the attack's volume and policy")
	// The client runs at the test's own policy: normal, unless the test
	// itself runs at SCHED_IDLE (chrt --idle), whose policy the harness
	// and its client inherit; only a test at the normal policy shows that
	// the attacker alone is put at SCHED_IDLE.
	want := "normal"
	if strings.HasPrefix(schedPolicies(), "idle") {
		want = "idle"
	}
	assert.Regexp(t, regexp.MustCompile(`(?m)the well-behaved client's threads by policy: `+want+` \d+$`), report, "the measured client at the test's own policy")
}

// TestSpoofRefusedOutsideNamespace: -mode spoof does not start in the
// network namespace it was started in (here the test's own): it forges
// packets only inside a private one.
func TestSpoofRefusedOutsideNamespace(t *testing.T) {
	bin := buildAbuse(t)
	self, err := os.Readlink("/proc/self/ns/net")
	require.NoError(t, err)
	run := exec.Command(bin, "-mode", "spoof")
	run.Env = append(os.Environ(), outerNetnsEnv+"="+self)
	out, err := run.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "abuse: %s", out)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), "runs only inside a private network namespace")
}

// TestSpoofSmoke runs -mode spoof briefly (answers delayed 300 ms, each
// attack 3 s at 5,000 packets a second, all but the two whose scans take
// the whole scan deadline) inside a private network namespace of its own,
// as root; elsewhere it is skipped. It asserts that
// the harness runs and reports every attack, not what the attacks did
// (RELIABILITY.md records that).
func TestSpoofSmoke(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace and raw sockets")
	}
	if err := exec.Command("unshare", "--net", "true").Run(); err != nil {
		t.Skipf("no private network namespace: %v", err)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip(8) to bring the namespace's loopback interface up")
	}
	bin := buildAbuse(t)
	self, err := os.Readlink("/proc/self/ns/net")
	require.NoError(t, err)
	run := exec.Command("unshare", "--net", "sh", "-c", `ip link set lo up && exec "$0" "$@"`,
		bin, "-mode", "spoof", "-attack", "3s", "-spoof-delay", "300ms", "-spoof-rate", "5000", "-skip", attackUndecodableSlow+","+attackCaseDowngrade)
	run.Dir = filepath.Join("..", "..", "..") // the zone path is relative to the module root
	run.Env = append(os.Environ(), outerNetnsEnv+"="+self)
	out, err := run.CombinedOutput()
	require.NoError(t, err, "abuse: %s", out)
	report := string(out)
	assert.Regexp(t, regexp.MustCompile(`baseline \(no attack\): 4 scans, 0 failed`), report)
	for _, kind := range spoofKinds {
		if kind == attackUndecodableSlow || kind == attackCaseDowngrade {
			continue // their scans take the whole scan deadline
		}
		assert.Regexp(t, regexp.MustCompile(`(?m)^`+kind+`\s+[1-9]\d*\s+\d+\s+\d+\s+\d+\s`), report, "the scans of %s", kind)
	}
	assert.Regexp(t, regexp.MustCompile(`(?m)^icmp-sweep\s+\d+\s+\d+\s+\d+\s+[1-9]\d*\s`), report, "the sweep sent packets")
	assert.Contains(t, report, "(the same domains from other sources, no attack running)")
}

// built is the harness, built once for the package's tests.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildAbuse builds the harness (once) and returns its path.
func buildAbuse(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "abuse-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "abuse")
		built.out, built.err = exec.Command(goBin, "build", "-o", built.bin, ".").CombinedOutput()
	})
	require.NoError(t, built.err, "go build: %s", built.out)
	return built.bin
}

// TestRunnableQuantile: the quantiles of the runnable goroutines are read
// from the samples since the previous reading only.
func TestRunnableQuantile(t *testing.T) {
	prev := make([]uint64, 8)
	prev[7] = 5 // a burst before the interval: not in it
	now := append([]uint64(nil), prev...)
	now[0] += 990
	now[3] += 9
	now[6]++
	assert.Equal(t, 0, runnableQuantile(now, prev, 0.99))
	assert.Equal(t, 3, runnableQuantile(now, prev, 0.999))
	assert.Equal(t, 6, runnableQuantile(now, prev, 1))
	assert.Equal(t, 0, runnableQuantile(prev, prev, 1), "no samples")
	assert.Equal(t, 7, runnableQuantile(now, nil, 1), "from the start")
}
