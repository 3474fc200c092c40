//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// startIdle starts cmd at the SCHED_IDLE policy (sched(7)): the attacker
// then runs only on a core that nothing of normal priority wants, and a
// waking task of normal priority (the server, the lab's DNS, the
// well-behaved client) takes the core from it at once. The policy is set
// on one locked thread just before cmd is forked from it, so the child
// inherits it and every thread the child makes inherits it in turn; the
// goroutine returns without unlocking, so the runtime ends that thread
// rather than run other goroutines on it at the lowest priority.
func startIdle(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0); err != nil {
			errc <- fmt.Errorf("sched_setattr SCHED_IDLE: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
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
