package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Options say what to build.
type Options struct {
	// Repo is the root of the specd repository (the main module).
	Repo string
	// Platforms are the images' platforms, each linux/ARCH.
	Platforms []v1.Platform
	// Version is specd's version: `specd version` prints it, and it is
	// the image's org.opencontainers.image.version.
	Version string
	// Revision is the commit the image is built from, with "-dirty"
	// when TreeState is dirty.
	Revision string
	// Commit is the commit's hash alone, and TreeState "clean" or
	// "dirty" (tracked files changed): `specd version -o json` reports
	// both, as `make release` stamps them.
	Commit, TreeState string
	// Source is where the source code is published.
	Source string
	// Created is the time of every file and of the image configuration.
	Created time.Time
}

// DefaultSource is where specd's source code is published.
const DefaultSource = "https://github.com/specd-io/specd"

// DefaultPlatforms are the platforms specd's image is built for.
var DefaultPlatforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// FromGit fills Commit, TreeState, Revision and Created from the
// repository's HEAD as hack/release reads them for `make release`: the
// commit's hash, "dirty" when a tracked file has changes (untracked files
// are not built from), and the commit time, unless $SOURCE_DATE_EPOCH
// sets the time (reproducible-builds.org's convention), never the clock.
func (o *Options) FromGit(ctx context.Context) error {
	rev, err := o.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	status, err := o.git(ctx, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return err
	}
	o.Commit, o.TreeState, o.Revision = rev, "clean", rev
	if status != "" {
		o.TreeState, o.Revision = "dirty", rev+"-dirty"
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = o.git(ctx, "log", "-1", "--format=%ct", "HEAD"); err != nil {
			return err
		}
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("image: the source date %q is not seconds since the epoch: %w", epoch, err)
	}
	o.Created = time.Unix(secs, 0).UTC()
	return nil
}

func (o *Options) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", o.Repo}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, exit.Stderr)
		}
		return "", fmt.Errorf("image: git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
