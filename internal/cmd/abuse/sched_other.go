//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

// startIdle is Linux-only: elsewhere it starts nothing and says so.
func startIdle(*exec.Cmd) error {
	return errors.New("SCHED_IDLE is Linux-only: use -attacker-sched normal")
}

// schedPolicies is Linux-only.
func schedPolicies() string { return "unknown" }
