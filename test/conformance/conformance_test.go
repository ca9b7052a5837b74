//go:build conformance

package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoRoot is the root of the specd module, relative to this package.
const repoRoot = "../.."

// suiteTimeout bounds the run of the passing tests; they took 5.5
// minutes in CI on two cores (docs/conformance.md).
const suiteTimeout = 20 * time.Minute

// TestPassing runs every test of passing.txt against a new specd and
// fails for each one that does not pass, or did not run.
func TestPassing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kube's e2e tests against specd")
	}
	names := Passing()
	if len(names) == 0 {
		t.Fatal("passing.txt lists no test")
	}
	specd, e2e := binary(t, "SPECD_BIN", "build", "bin/specd"), binary(t, "E2E_TEST", "e2e-test", "bin/e2e.test")
	kubectl := binary(t, "KUBECTL", "kubectl", "bin/kubectl")
	// Not t.Context(): it ends before the cleanup, and its end would kill
	// specd before Stop asks it to shut down.
	s, err := StartSpecd(context.WithoutCancel(t.Context()), specd, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	results := runExactly(t, Suite{E2E: e2e, Kubeconfig: s.Kubeconfig, Kubectl: kubectl, ReportDir: t.TempDir(), Timeout: suiteTimeout}, names)
	for _, name := range names {
		switch r, ok := results[name]; {
		case !ok:
			t.Errorf("did not run (not in the e2e binary under this name?): %s", name)
		case r.Outcome != Passed:
			t.Errorf("%s: %s\n%s", r.Outcome, name, r.Failure)
		}
	}
	if t.Failed() {
		t.Logf("specd's log:\n%s", s.Log())
	}
}

// runExactly runs the tests names with s, and returns their results by
// name. The binary's output goes to the test's log when it fails.
func runExactly(t *testing.T, s Suite, names []string) map[string]Result {
	t.Helper()
	for _, n := range names {
		s.Focus = append(s.Focus, Exactly(n))
	}
	var out strings.Builder
	s.Out = &out
	if err := s.Run(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	results, err := ReadJUnit(s.Report())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kube's e2e binary printed:\n%s", out.String())
		}
	})
	byName := make(map[string]Result, len(results))
	for _, r := range results {
		if r.Outcome != Skipped || byName[r.Name].Outcome == "" {
			byName[r.Name] = r
		}
	}
	return byName
}

// buildTimeout bounds a `make` of a missing binary: kube's e2e binary
// takes many minutes cold.
const buildTimeout = 40 * time.Minute

// binary is the program that $env names (relative to the repository
// root, as the Makefile writes it), or else the one `make target` builds
// into out under the repository root.
func binary(t *testing.T, env, target, out string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		ctx, cancel := context.WithTimeout(t.Context(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "make", target)
		cmd.Dir = repoRoot
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("$%s is not set, and make %s failed: %v\n%s", env, target, err, b)
		}
		p = out
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(repoRoot, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("$%s: %v", env, err)
	}
	return abs
}
