package clients

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// testingControllersDoc is the page whose suite TestTestingControllers runs.
var testingControllersDoc = filepath.Join(harness.RepoRoot, "docs", "testing-controllers.md")

// controllerModule pins controller-runtime and client-go for the page's
// suite, as for the test controller.
var controllerModule = filepath.Join(harness.RepoRoot, "test", "controller")

// TestTestingControllers runs docs/testing-controllers.md: the page's Go
// files, as written there, in kubebuilder's layout with examples/crds as
// config/crd/bases, tested with `go test` against the specd being tested.
// The suite starts specd itself with specdtest, from a module outside
// specd's that requires it as a user's does (replaced by this checkout),
// and fails if its controller does not charge a Robot or specd accepts
// an invalid one.
func TestTestingControllers(t *testing.T) {
	t.Parallel()
	files := goFilesOf(t, testingControllersDoc, "robot_controller.go", "suite_test.go")
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(controllerModule, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module example.com/toys"))
	mod = specdReplace(t, mod)
	harness.WriteFile(t, dir, "go.mod", string(mod))
	copyFile(t, filepath.Join(controllerModule, "go.sum"), filepath.Join(dir, "go.sum"))
	bases := filepath.Join(dir, "config", "crd", "bases")
	if err := os.CopyFS(bases, os.DirFS(filepath.Join(harness.RepoRoot, "examples", "crds"))); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "internal", "controller")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		harness.WriteFile(t, pkg, name, src)
	}

	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "SPECD_BIN="+harness.Binaries.Specd)
	out := run(t, dir, env, "go", "test", "-count=1", "-v", "./internal/controller/")
	for _, test := range []string{"TestRobotIsCharged", "TestRobotWithTwoControlsIsInvalid"} {
		if !strings.Contains(out, "--- PASS: "+test+" ") {
			t.Errorf("the page's suite did not pass %s:\n%s", test, out)
		}
	}
}

// goFilesOf returns the blocks of a page whose first line names one of
// the files (`// main.go`), each whole, failing if one is missing.
func goFilesOf(t *testing.T, page string, names ...string) map[string]string {
	t.Helper()
	md, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := harness.Fences(string(md))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	files := map[string]string{}
	for _, b := range blocks {
		if len(b.Lines) == 0 || b.Info != "go" {
			continue
		}
		if m := fileComment.FindStringSubmatch(b.Lines[0]); m != nil {
			files[m[1]] = strings.Join(b.Lines, "\n") + "\n"
		}
	}
	for _, name := range names {
		if files[name] == "" {
			t.Fatalf("%s has no go block starting with the file name %s", page, name)
		}
	}
	return files
}

// specdReplace points test/controller's replace of specd's module, a
// path relative to test/controller, at this checkout.
func specdReplace(t *testing.T, mod []byte) []byte {
	t.Helper()
	root, err := filepath.Abs(harness.RepoRoot)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^replace github.com/specd-io/specd => .*$`)
	if !re.Match(mod) {
		t.Fatalf("%s/go.mod does not replace github.com/specd-io/specd", controllerModule)
	}
	return re.ReplaceAll(mod, []byte("replace github.com/specd-io/specd => "+root))
}
