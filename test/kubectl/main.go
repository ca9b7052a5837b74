// Command kubectl is kubectl from the k8s.io/kubectl module at the version
// pinned in this folder's go.mod, so that the acceptance tests drive a known
// client and need no kubectl installed on the machine.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}
