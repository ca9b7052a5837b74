package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/specd-io/specd/internal/cliflag"
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

const usage = `specd serves Kubernetes-style APIs declared in OpenAPI files.

Usage:
  specd serve --schemas DIR [--data-dir DIR] [--listen HOST:PORT] [--plugins DIR] [--etcd-servers URL,...] [--watch=false] [--allow-breaking]
  specd check --schemas DIR [--previous DIR [--etcd-servers URL,...]] [--output text|json] [--seed N] [--rounds N]
  specd apiservices --schemas DIR --apiservice-service NAMESPACE/NAME [--apiservice-port N] [--apiservice-ca-file FILE]
  specd bench [flags]
  specd snapshot save FILE [--data-dir DIR | --etcd-servers URL]
  specd snapshot restore FILE --data-dir DIR
  specd version [-o json|yaml]

Run "specd COMMAND -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serveCommand(ctx, args[1:], stdout, stderr)
	case "check":
		return checkCommand(ctx, args[1:], stdout, stderr)
	case "snapshot":
		return snapshotCommand(ctx, args[1:], stdout, stderr)
	case "apiservices":
		return apiservicesCommand(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCommand(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		return versionCommand(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "specd: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// versionCommand prints specd's version, or with -o json|yaml the
// Kubernetes version it serves, its commit, build date and platform.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("specd version", flag.ContinueOnError)
	output := fs.String("output", "", "json or yaml: the Kubernetes version, commit, build date and platform too")
	fs.StringVar(output, "o", "", "shorthand for --output")
	err := cliflag.Parse(fs, args, stdout)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	b := []byte(build().Resolved().Version + "\n")
	if err == nil && *output != "" {
		b, err = build().Report().Format(*output)
	}
	if err != nil {
		return exitCode(fmt.Errorf("%w: %w", errUsage, err), "specd version", stderr)
	}
	_, _ = stdout.Write(b)
	return 0
}

// errUsage marks an error in the command line: exit code 2.
var errUsage = errors.New("usage")

// exitCode is a command's exit code for err, which it prints: 0 for none
// or -h, 2 for a usage error, 1 for any other.
func exitCode(err error, command string, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "%s: %s\n", command, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", command, err)
		return 1
	}
}
