package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/apiservices"
)

// apiservicesCommand prints the APIServices that `specd serve
// --aggregated --register-apiservices` would keep for a schema
// directory, for users who apply them with GitOps instead.
func apiservicesCommand(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var flags aggregationFlags
	var dir string
	fs := flag.NewFlagSet("specd apiservices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dir, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.StringVar(&flags.Service, "apiservice-service", "", "NAMESPACE/NAME of the host Service in front of specd (required)")
	fs.IntVar(&flags.Port, "apiservice-port", 443, "port of --apiservice-service")
	fs.StringVar(&flags.CAFile, "apiservice-ca-file", "", "PEM file of the CA of specd's serving certificate, the caBundle; without it the manifests have none (for a CA injector, such as cert-manager's)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := printAPIServices(dir, flags, fs.Args(), stdout); err != nil {
		fmt.Fprintf(stderr, "specd apiservices: %v\n", err)
		return 1
	}
	return 0
}

func printAPIServices(dir string, flags aggregationFlags, rest []string, stdout io.Writer) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
	case dir == "":
		return errors.New("--schemas is required")
	}
	var ca []byte
	if flags.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(flags.CAFile); err != nil {
			return fmt.Errorf("--apiservice-ca-file: %w", err)
		}
	}
	cfg, err := flags.config(ca)
	if err != nil {
		return err
	}
	if cfg.Port == 0 {
		return errors.New("--apiservice-port 0: a printed APIService needs the Service's port")
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		return err
	}
	return apiservices.Print(stdout, apiservices.Manifests(reg, cfg))
}
