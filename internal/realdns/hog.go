package realdns

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// BusyLoad is the number of CPU hogs [Hog] starts for a machine "at load
// 30": each is one process always ready to run, so the load average
// climbs towards it and every other process on the machine gets about
// cores/(BusyLoad+cores) of a core.
const BusyLoad = 30

// Hog starts n processes that only burn CPU (`sh -c 'while :; do :;
// done'`: nothing to install), so that the test's steps run on a machine
// as loaded as a busy shared one. They are killed (SIGKILL, by their own
// process ids) when tb ends, and by the kernel if the test binary dies
// first ([DieWithTest]); a test whose subtests run in parallel keeps them
// running until those end, as tb's clean-up does. The load average lags
// (its one-minute figure takes about a minute to climb), the contention
// does not: from the start every other process waits its turn.
func Hog(tb testing.TB, n int) {
	tb.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		tb.Fatalf("the CPU hog needs sh: %v", err)
	}
	var cmds []*exec.Cmd
	tb.Cleanup(func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	for range n {
		c := exec.Command(sh, "-c", "while :; do :; done")
		DieWithTest(c)
		if err := c.Start(); err != nil {
			tb.Fatalf("start CPU hog: %v", err)
		}
		cmds = append(cmds, c)
	}
}

// LoadAverage returns the one-minute load average (/proc/loadavg), or an
// error where there is none. Tests log it; no verdict depends on it.
func LoadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("load average: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("load average: empty /proc/loadavg")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("load average: %w", err)
	}
	return v, nil
}
