package build

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// ldflags strip the symbol table and the DWARF debugging information: a
// third of the binary's size. A panic's stack trace and Go's profiles
// keep their function names and lines (the runtime's own tables stay);
// what goes is a debugger's view of the process and `go tool nm`.
const ldflags = "-s -w"

// binaries are the programs of one platform's image, built into a
// directory of their own.
type binaries struct {
	specd   string   // the specd binary
	plugins []string // the example plugins, by name
	dir     string   // where the plugins are
}

// compile builds specd and the example plugins for p into dir, static
// (CGO_ENABLED=0), with -trimpath and without the go command's VCS stamp
// (-buildvcs=false: specd's is stampFlags'), so that the binaries depend
// on the source and the Go toolchain only, not on where the clone is or
// on an untracked file in it.
func compile(ctx context.Context, o Options, p v1.Platform, dir string) (*binaries, error) {
	b := &binaries{specd: filepath.Join(dir, "specd"), dir: filepath.Join(dir, "plugins")}
	flags := ldflags + " " + o.stampFlags()
	if err := goBuild(ctx, o.Repo, p, "-ldflags", flags, "-o", b.specd, "./cmd/specd"); err != nil {
		return nil, err
	}
	// A trailing separator: go build writes each plugin into the folder.
	if err := goBuild(ctx, o.Repo, p, "-ldflags", ldflags, "-o", b.dir+string(filepath.Separator), "./examples/plugins/..."); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return nil, fmt.Errorf("image: the plugins built: %w", err)
	}
	for _, e := range entries {
		b.plugins = append(b.plugins, e.Name())
	}
	slices.Sort(b.plugins)
	return b, nil
}

// stampFlags set cmd/specd's version variables as hack/release does:
// the version, the commit, the tree state and the build date, which is
// the image's creation time (the commit's, not the clock's).
func (o Options) stampFlags() string {
	return strings.Join([]string{
		"-X main.specdVersion=" + o.Version,
		"-X main.gitCommit=" + o.Commit,
		"-X main.gitTreeState=" + o.TreeState,
		"-X main.buildDate=" + o.Created.Format(time.RFC3339),
	}, " ")
}

func goBuild(ctx context.Context, repo string, p v1.Platform, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-trimpath", "-buildvcs=false"}, args...)...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("image: go build %s for %s: %w\n%s", strings.Join(args, " "), p.String(), err, out)
	}
	return nil
}
