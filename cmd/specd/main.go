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
)

// version is set at build time with -ldflags "-X main.specdVersion=...".
var specdVersion = "v0.1.0-dev"

const usage = `specd serves Kubernetes-style APIs declared in OpenAPI files.

Usage:
  specd serve --schemas DIR --data-dir DIR --listen HOST:PORT [--etcd-servers URL,...] [--plugins DIR] [--watch=false] [--allow-breaking]
  specd check --schemas DIR [--previous DIR [--etcd-servers URL,...]] [--output text|json] [--seed N] [--rounds N]
  specd apiservices --schemas DIR --apiservice-service NAMESPACE/NAME [--apiservice-port N] [--apiservice-ca-file FILE]
  specd bench [flags]
  specd snapshot save FILE [--data-dir DIR | --etcd-servers URL]
  specd snapshot restore FILE --data-dir DIR
  specd version

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
		return serveCommand(ctx, args[1:], stderr)
	case "check":
		return checkCommand(ctx, args[1:], stdout, stderr)
	case "snapshot":
		return snapshotCommand(ctx, args[1:], stdout, stderr)
	case "apiservices":
		return apiservicesCommand(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCommand(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, specdVersion)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "specd: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
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
