//go:build !linux

package chaos

import "os/exec"

func dieWithTest(*exec.Cmd) {}
