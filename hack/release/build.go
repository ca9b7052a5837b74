package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Platforms are the supported platforms, as OS/ARCH: the release builds
// each. README.md's "Supported platforms" says what is tested where.
var Platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"}

// SumsFile lists the SHA-256 of every binary, in `sha256sum` format.
const SumsFile = "SHA256SUMS"

// options are one release: what to build, from where, into where.
type options struct {
	Repo, Out, Version string
	Platforms          []string
	Stamp              stamp
}

// stamp is what the binary says of its source (`specd version`).
type stamp struct {
	Commit, TreeState, Date string
}

// ldflags strip the symbol table and DWARF (a third of the size; a
// panic's stack trace keeps its names and lines) and set cmd/specd's
// version variables.
func (o options) ldflags() string {
	return strings.Join([]string{"-s -w",
		"-X main.specdVersion=" + o.Version,
		"-X main.gitCommit=" + o.Stamp.Commit,
		"-X main.gitTreeState=" + o.Stamp.TreeState,
		"-X main.buildDate=" + o.Stamp.Date,
	}, " ")
}

// binaryName is the file one platform's specd is written to.
func binaryName(version, platform string) string {
	return "specd-" + version + "-" + strings.ReplaceAll(platform, "/", "-")
}

// build compiles specd for every platform into o.Out and writes the
// checksums; it returns the files written.
func build(ctx context.Context, o options) ([]string, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("the output directory: %w", err)
	}
	var names []string
	for _, p := range o.Platforms {
		name := binaryName(o.Version, p)
		if err := goBuild(ctx, o, p, filepath.Join(o.Out, name)); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if err := writeSums(o.Out, names); err != nil {
		return nil, err
	}
	return append(names, SumsFile), nil
}

// goBuild builds ./cmd/specd for platform into out, with nothing of the
// environment that could change the bytes.
func goBuild(ctx context.Context, o options, platform, out string) error {
	goos, goarch, ok := strings.Cut(platform, "/")
	if !ok {
		return fmt.Errorf("platform %q: want OS/ARCH", platform)
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", o.ldflags(), "-o", out, "./cmd/specd")
	cmd.Dir = o.Repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		"GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT=")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %w\n%s", platform, err, b)
	}
	return nil
}

// writeSums writes SHA256SUMS for the files names in dir.
func writeSums(dir string, names []string) error {
	var b strings.Builder
	for _, name := range names {
		sum, err := sha256File(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}
	return os.WriteFile(filepath.Join(dir, SumsFile), []byte(b.String()), 0o644)
}

func sha256File(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
