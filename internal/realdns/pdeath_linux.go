package realdns

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes cmd killed (SIGKILL) when the test binary that starts
// it dies before its clean-up runs, so that no server outlives the test.
func DieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
