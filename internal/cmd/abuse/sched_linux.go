//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// idleAllThreads puts every thread of this process at the SCHED_IDLE
// policy (sched(7)): the process then runs only on a core that nothing
// of normal priority wants, and a waking task of normal priority takes
// the core from it at once. Threads made later inherit the policy of the
// thread that makes them; a pass that finds a thread not yet at the
// policy is followed by another, so that a thread made during a pass is
// not missed.
func idleAllThreads() error {
	for pass := 0; pass < 100; pass++ {
		tasks, err := filepath.Glob("/proc/self/task/*")
		if err != nil {
			return fmt.Errorf("threads: %w", err)
		}
		changed := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(filepath.Base(t))
			if err != nil || threadPolicy(filepath.Join(t, "stat")) == "idle" {
				continue
			}
			if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("sched_setattr SCHED_IDLE: %w", err)
			}
			changed = true
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("sched_setattr SCHED_IDLE: threads kept appearing")
}

// schedPolicies returns how many of this process's threads run at each
// scheduling policy ("idle 9, normal 1"), read from /proc/self/task.
func schedPolicies() string {
	tasks, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil || len(tasks) == 0 {
		return "unknown"
	}
	count := map[string]int{}
	for _, t := range tasks {
		count[threadPolicy(t)]++
	}
	var parts []string
	for _, name := range []string{"idle", "normal", "batch", "other", "unknown"} {
		if count[name] > 0 {
			parts = append(parts, name+" "+strconv.Itoa(count[name]))
		}
	}
	return strings.Join(parts, ", ")
}

// threadPolicy reads the policy field of a /proc/…/task/…/stat file.
func threadPolicy(stat string) string {
	b, err := os.ReadFile(stat)
	if err != nil {
		return "unknown"
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	const policyField = 41 - 3 // proc(5): field 41; f starts at field 3, the state
	if len(f) <= policyField {
		return "unknown"
	}
	switch f[policyField] {
	case strconv.Itoa(unix.SCHED_IDLE):
		return "idle"
	case strconv.Itoa(unix.SCHED_NORMAL):
		return "normal"
	case strconv.Itoa(unix.SCHED_BATCH):
		return "batch"
	}
	return "other"
}
