//go:build !linux

package main

import "errors"

// idleAllThreads is Linux-only.
func idleAllThreads() error {
	return errors.New("SCHED_IDLE is Linux-only: use -attacker-sched normal")
}

// schedPolicies is Linux-only.
func schedPolicies() string { return "unknown" }
