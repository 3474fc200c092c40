package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
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
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "abuse")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	run := exec.Command(bin, "-mode", "attack", "-hostile", "2", "-unloaded", "1s", "-attack", "2s")
	run.Dir = filepath.Join("..", "..", "..") // the zone path is relative to the module root
	out, err = run.CombinedOutput()
	require.NoError(t, err, "abuse: %s", out)
	report := string(out)
	assert.Regexp(t, regexp.MustCompile(`unloaded\s+n\s+[1-9]\d*\s+success`), report, "unloaded figures")
	assert.Regexp(t, regexp.MustCompile(`attack\s+n\s+[1-9]\d*\s+success`), report, "figures under attack")
	assert.Contains(t, report, "success under attack")
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
	assert.Regexp(t, regexp.MustCompile(`slow-ipv4: [^\n]*, 2s later \d+ KB: \d+\.\d\d x baseline`), report, "RSS after the siege")
}
