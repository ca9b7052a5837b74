package plugins

import (
	"os/exec"
	"syscall"
)

// dieWithHost makes the kernel kill the plugin when specd dies, even by
// SIGKILL, which leaves go-plugin no chance to clean up.
func dieWithHost(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
