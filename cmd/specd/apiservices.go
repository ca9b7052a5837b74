package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/specd-io/specd/server/aggregated"
)

// apiservicesCommand prints the APIServices that `specd serve
// --aggregated --register-apiservices` would keep for a schema
// directory, for users who apply them with GitOps instead.
func apiservicesCommand(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var flags aggregated.Flags
	var dir string
	fs := flag.NewFlagSet("specd apiservices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dir, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.StringVar(&flags.Service, "apiservice-service", "", "NAMESPACE/NAME of the host Service in front of specd (required)")
	fs.IntVar(&flags.Port, "apiservice-port", 443, "port of --apiservice-service")
	fs.StringVar(&flags.CAFile, "apiservice-ca-file", "", "PEM file of the CA of specd's serving certificate, the caBundle; without it the manifests have none (for a CA injector, such as cert-manager's)")
	if err := fs.Parse(args); err != nil {
		return exitCode(fmt.Errorf("%w: %w", errUsage, err), "specd apiservices", stderr)
	}
	err := errors.New("unexpected arguments: " + strings.Join(fs.Args(), " "))
	if fs.NArg() == 0 {
		err = aggregated.PrintAPIServices(stdout, dir, flags)
	}
	if err != nil {
		fmt.Fprintf(stderr, "specd apiservices: %v\n", err)
		return 1
	}
	return 0
}
