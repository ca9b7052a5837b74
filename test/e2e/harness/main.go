package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Binaries are the programs the tests run, set up once by Main.
var Binaries struct {
	Specd   string
	Kubectl string
	Plugins string // a directory: the example plugins, which the example schemas bind
}

// RepoRoot is the root of the specd module, relative to the directory of
// an e2e package (test/e2e/AREA), where go test runs its tests.
const RepoRoot = "../../.."

// buildTimeout bounds one `go build`.
const buildTimeout = 5 * time.Minute

// Main is the TestMain of every e2e package: it sets up Binaries, runs
// the package's tests and exits with their status.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "specd-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := setUpBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}

// setUpBinaries uses $SPECD_BIN, $KUBECTL and $PLUGINS_DIR when set
// (relative paths are taken from the repository root, as the Makefile
// writes them), and builds whatever is missing, all at once: specd and
// the plugins, the code under test, into dir; kubectl, pinned, where
// every e2e package finds it (Kubectl.Path).
func setUpBinaries(dir string) error {
	type build struct {
		target *string
		env    string
		build  func() (string, error)
	}
	builds := []build{
		{&Binaries.Specd, "SPECD_BIN", func() (string, error) {
			out := filepath.Join(dir, "specd")
			return out, GoBuild(RepoRoot, "./cmd/specd", out)
		}},
		{&Binaries.Kubectl, "KUBECTL", kubectlTool.build},
		{&Binaries.Plugins, "PLUGINS_DIR", func() (string, error) {
			// A trailing slash: go build writes each plugin into the directory.
			out := filepath.Join(dir, "plugins") + string(filepath.Separator)
			return out, GoBuild(RepoRoot, "./examples/plugins/...", out)
		}},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(builds))
	for i, b := range builds {
		if p := os.Getenv(b.env); p != "" {
			abs, err := prebuilt(p)
			if err != nil {
				return fmt.Errorf("$%s: %w", b.env, err)
			}
			*b.target = abs
			continue
		}
		wg.Go(func() { *b.target, errs[i] = b.build() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func prebuilt(p string) (string, error) {
	if !filepath.IsAbs(p) {
		if _, err := os.Stat(p); err != nil {
			p = filepath.Join(RepoRoot, p)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// GoBuild builds pkg, a package pattern of the module in srcDir, into out.
func GoBuild(srcDir, pkg, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = srcDir
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", pkg, srcDir, err, output)
	}
	fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", filepath.Base(out), time.Since(start).Round(time.Second))
	return nil
}
