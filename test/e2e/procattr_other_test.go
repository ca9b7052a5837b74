//go:build !linux

package e2e

import "os/exec"

// dieWithTest is a no-op where the kernel cannot tie a child's life to its
// parent's; Cleanup still stops every specd on a normal exit.
func dieWithTest(*exec.Cmd) {}
