package main

import (
	"github.com/spf13/cobra"

	"github.com/specd-io/specd/internal/cliflag"
	"github.com/specd-io/specd/server/aggregated"
)

// apiservicesCommand prints the APIServices that `specd serve
// --aggregated --register-apiservices` would keep for a schema
// directory, for users who apply them with GitOps instead.
func apiservicesCommand() *cobra.Command {
	var flags aggregated.Flags
	var dir string
	cmd := &cobra.Command{
		Use:     "apiservices --schemas DIR --apiservice-service NAMESPACE/NAME",
		Short:   "Print the APIServices that specd serve --aggregated --register-apiservices keeps, to apply them yourself",
		Example: `  specd apiservices --schemas schemas --apiservice-service specd-system/specd --apiservice-ca-file ca.crt | kubectl apply -f -`,
		Args:    cliflag.NoArgs,
		RunE: cliflag.RunE(func(cmd *cobra.Command, _ []string) error {
			return aggregated.PrintAPIServices(cmd.OutOrStdout(), dir, flags)
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.StringVar(&flags.Service, "apiservice-service", "", "NAMESPACE/NAME of the host Service in front of specd (required)")
	fs.IntVar(&flags.Port, "apiservice-port", 443, "port of --apiservice-service")
	fs.StringVar(&flags.CAFile, "apiservice-ca-file", "", "PEM file of the CA of specd's serving certificate, the caBundle; without it the manifests have none (for a CA injector, such as cert-manager's)")
	return cmd
}
