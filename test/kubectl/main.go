// Command kubectl is kubectl from the k8s.io/kubectl module at the version
// pinned in this folder's go.mod, so that the acceptance tests drive a known
// client and need no kubectl installed on the machine.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	code := cli.Run(command)
	// cli.Run returns the exit code; kubectl exits with it.
	exit(code)
}
