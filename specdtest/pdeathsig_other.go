//go:build !linux

package specdtest

import "os/exec"

// dieWithParent does nothing: only Linux has a parent-death signal, so
// elsewhere a specd whose test binary died without Stop keeps running.
func dieWithParent(*exec.Cmd) {}
