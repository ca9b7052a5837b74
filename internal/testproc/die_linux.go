package testproc

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes cmd get SIGKILL if the test process dies first (a
// panic, a -timeout), so no child outlives the tests.
func DieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
