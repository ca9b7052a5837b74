package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/specd-io/specd/tools/image/build"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	repo := fs.String("repo", "../..", "root of the specd repository")
	out := fs.String("out", "", "directory to write the OCI image layout to (replaced)")
	archive := fs.String("tar", "", "also write the layout as one tar file (an OCI archive) here")
	version := fs.String("version", "v0.1.0-dev", "specd's version")
	source := fs.String("source", build.DefaultSource, "where the source is published (org.opencontainers.image.source)")
	platforms := fs.String("platforms", "linux/amd64,linux/arm64", "comma-separated OS/ARCH")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("image: -out is required")
	}
	o := build.Options{Repo: *repo, Version: *version, Source: *source}
	for _, p := range strings.Split(*platforms, ",") {
		plat, err := v1.ParsePlatform(p)
		if err != nil {
			return fmt.Errorf("image: -platforms: %w", err)
		}
		o.Platforms = append(o.Platforms, *plat)
	}
	if err := o.FromGit(ctx); err != nil {
		return err
	}
	return write(ctx, o, *out, *archive)
}

func write(ctx context.Context, o build.Options, out, archive string) error {
	scratch, err := os.MkdirTemp("", "specd-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	idx, err := build.Build(ctx, o, scratch)
	if err != nil {
		return err
	}
	if err := build.WriteLayout(out, idx, o.Version); err != nil {
		return err
	}
	if archive != "" {
		if err := build.WriteArchive(out, archive, o.Created); err != nil {
			return err
		}
	}
	return report(idx, o, out)
}

// report says what was built: the index's digest and each image's size.
func report(idx v1.ImageIndex, o build.Options, out string) error {
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	sizes, err := build.Sizes(idx)
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(out)
	fmt.Printf("specd %s (%s, %s) in %s\nindex %s\n", o.Version, o.Revision, o.Created.Format("2006-01-02T15:04:05Z"), abs, digest)
	for _, s := range sizes {
		fmt.Printf("%-12s %6.1f MB compressed, %6.1f MB unpacked\n", s.Platform.String(), mb(s.Compressed), mb(s.Uncompressed))
	}
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }
