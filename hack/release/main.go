package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	var o options
	var platforms string
	fs.StringVar(&o.Repo, "repo", ".", "the specd clone to build")
	fs.StringVar(&o.Out, "out", "bin/release", "where the binaries and SHA256SUMS go")
	fs.StringVar(&o.Version, "version", "", "the version stamped into the binaries (required), such as v0.2.0")
	fs.StringVar(&platforms, "platforms", strings.Join(Platforms, ","), "comma-separated OS/ARCH pairs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.Version == "" {
		return fmt.Errorf("-version is required")
	}
	o.Platforms = strings.Split(platforms, ",")
	stamp, err := readStamp(ctx, o.Repo)
	if err != nil {
		return err
	}
	o.Stamp = stamp
	files, err := build(ctx, o)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Println(f)
	}
	return nil
}
