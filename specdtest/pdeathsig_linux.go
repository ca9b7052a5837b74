package specdtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill specd when the test binary dies
// without stopping it (a panic, a killed go test), so no specd outlives
// the suite.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
