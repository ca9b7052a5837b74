package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/specd-io/specd/internal/cliflag"
	"github.com/specd-io/specd/loadtest"
	"github.com/specd-io/specd/server"
)

// The build sets these with -ldflags "-X main.specdVersion=..." (make
// build the version; hack/release all four). What is left empty is read
// from what the go command recorded (server.Build).
var (
	specdVersion = server.DevVersion
	gitCommit    string
	gitTreeState string
	buildDate    string
)

// build is what this binary says of its source.
func build() server.Build {
	return server.Build{Version: specdVersion, Commit: gitCommit, TreeState: gitTreeState, Date: buildDate}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs specd's command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cliflag.Execute(ctx, rootCommand(stderr), args, stdout, stderr)
}

// rootCommand is specd and its commands; the servers' logs go to stderr.
func rootCommand(stderr io.Writer) *cobra.Command {
	root := cliflag.Group(&cobra.Command{
		Use:   "specd",
		Short: "specd serves Kubernetes-style APIs declared in OpenAPI files",
		Long: "specd serves Kubernetes-style APIs declared in OpenAPI files: REST, discovery, watch and OpenAPI,\n" +
			"stored in etcd, for kubectl, client-go and every other Kubernetes client.",
		Example: `  specd serve --schemas examples/schemas --plugins bin/plugins
  specd check --schemas schemas --previous old-schemas
  specd completion bash > /etc/bash_completion.d/specd`,
		Version: build().Resolved().Version,
	})
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(serveCommand(stderr), checkCommand(), snapshotCommand(stderr), apiservicesCommand(), loadtest.NewCommand(), versionCommand())
	return root
}

// versionCommand prints specd's version, the Kubernetes version it
// serves, its commit, build date and platform.
func versionCommand() *cobra.Command {
	var output string
	var short bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print specd's version, the Kubernetes version it serves, its commit and build date",
		Example: `  specd version
  specd version --short
  specd version -o json`,
		Args: cliflag.NoArgs,
		RunE: cliflag.RunE(func(cmd *cobra.Command, _ []string) error {
			b := []byte(build().Resolved().Version + "\n")
			var err error
			if !short {
				b, err = build().Report().Format(output)
			}
			if err != nil {
				return cliflag.Usage(err)
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		}),
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml; without it, lines of text")
	cmd.Flags().BoolVar(&short, "short", false, "print specd's version only")
	cliflag.Values(cmd, "output", "json", "yaml")
	return cmd
}
