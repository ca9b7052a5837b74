package chaos

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes cmd get SIGKILL if the test process dies first.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
