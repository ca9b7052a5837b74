package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// binaries are the programs the test runs, built once by TestMain.
var binaries struct{ specd, etcdmember string }

// repoRoot is the root of the specd module, relative to this package.
const repoRoot = "../.."

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "specd-chaos-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binaries.specd, binaries.etcdmember = os.Getenv("SPECD_BIN"), filepath.Join(dir, "etcdmember")
	if binaries.specd == "" {
		binaries.specd = filepath.Join(dir, "specd")
		if err := goBuild("./cmd/specd", binaries.specd); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 1
		}
	} else if !filepath.IsAbs(binaries.specd) {
		// As the Makefile writes it: relative to the repository root.
		if binaries.specd, err = filepath.Abs(filepath.Join(repoRoot, binaries.specd)); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 1
		}
	}
	if err := goBuild("./test/chaos/etcdmember", binaries.etcdmember); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	return m.Run()
}

func goBuild(pkg, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = repoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, output)
	}
	return nil
}
