//go:build !linux

package testproc

import "os/exec"

// DieWithTest is a no-op where the kernel cannot tie a child's life to its
// parent's; the suites' Cleanup still stops every child on a normal exit.
func DieWithTest(*exec.Cmd) {}
