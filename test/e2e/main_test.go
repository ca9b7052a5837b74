package e2e

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

// binaries are the programs the tests run, set up once by TestMain.
var binaries struct {
	specd   string
	kubectl string
	plugins string // a directory: the example plugins, which the example schemas bind
}

// binDir is where TestMain builds the binaries, and where the tools only
// some tests run (tools_test.go) are built on first use.
var binDir string

// repoRoot is the root of the specd module, relative to this package.
const repoRoot = "../.."

// buildTimeout bounds one `go build`; kubectl takes about 70 s cold.
const buildTimeout = 5 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "specd-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	if err := setUpBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}

// setUpBinaries uses $SPECD_BIN, $KUBECTL and $PLUGINS_DIR when set
// (relative paths are taken from the repository root, as the Makefile
// writes them), and builds whatever is missing into dir, all at once.
func setUpBinaries(dir string) error {
	type build struct {
		target *string
		env    string
		out    string
		srcDir string // where to run `go build`
		pkg    string
	}
	builds := []build{
		{&binaries.specd, "SPECD_BIN", filepath.Join(dir, "specd"), repoRoot, "./cmd/specd"},
		{&binaries.kubectl, "KUBECTL", filepath.Join(dir, "kubectl"), filepath.Join(repoRoot, "test", "kubectl"), "."},
		// A trailing slash: go build writes each plugin into the directory.
		{&binaries.plugins, "PLUGINS_DIR", filepath.Join(dir, "plugins") + string(filepath.Separator), repoRoot, "./examples/plugins/..."},
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
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.env == "KUBECTL" {
				errs[i] = makeTool("kubectl", "KUBECTL_BIN", b.out)
			} else {
				errs[i] = goBuild(b.srcDir, b.pkg, b.out)
			}
			*b.target = b.out
		}()
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
			p = filepath.Join(repoRoot, p)
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

func goBuild(srcDir, pkg, out string) error {
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
