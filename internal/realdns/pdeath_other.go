//go:build !linux

package realdns

import "os/exec"

// DieWithTest does nothing where the parent-death signal does not exist;
// the test's clean-up still stops every server it started.
func DieWithTest(*exec.Cmd) {}
