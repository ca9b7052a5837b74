package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestReadmeQuickStart runs the kubectl lines of README.md's quick start
// against specd serving the example schemas over TLS, as a new user would
// after `make run`, with the kubeconfig the README exports, so the README
// cannot drift from what specd does.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(harness.RepoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := quickStartKubectlLines(t, string(readme))
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	k := harness.NewKubectl(t, s)
	if got := quickStartKubeconfig(t, string(readme), s.DataDir); got != s.Kubeconfig {
		t.Fatalf("the README exports KUBECONFIG=%s; specd wrote %s", got, s.Kubeconfig)
	}
	var outputs []string
	for _, line := range lines {
		args := strings.Fields(line)[1:]
		if args[0] == "config" {
			// It would change the reader's own kubeconfig.
			t.Fatalf("the quick start runs %q: use the exported KUBECONFIG instead", line)
		}
		for i, a := range args {
			// Manifests are named relative to the repository root.
			if p := filepath.Join(harness.RepoRoot, a); strings.HasSuffix(a, ".yaml") && harness.FileExists(p) {
				args[i] = p
			}
		}
		outputs = append(outputs, k.OK(t, args...))
	}
	all := strings.Join(outputs, "\n")
	for _, want := range []string{"widgets", "widget.shop.example.com/small created", "name: small", `widget.shop.example.com "small" deleted`} {
		if !strings.Contains(all, want) {
			t.Errorf("the quick start's output does not contain %q:\n%s", want, all)
		}
	}
}

// makeRunDataDir is the --data-dir of `make run`.
const makeRunDataDir = "data/"

var exportKubeconfig = regexp.MustCompile(`(?m)^export KUBECONFIG=(\S+)$`)

// quickStartKubeconfig is the file the README's quick start exports as
// KUBECONFIG, in dataDir rather than in `make run`'s.
func quickStartKubeconfig(t *testing.T, readme, dataDir string) string {
	t.Helper()
	m := exportKubeconfig.FindStringSubmatch(readme)
	if m == nil || !strings.HasPrefix(m[1], makeRunDataDir) {
		t.Fatalf("README.md's quick start does not export a KUBECONFIG in %s: %q", makeRunDataDir, m)
	}
	return filepath.Join(dataDir, strings.TrimPrefix(m[1], makeRunDataDir))
}

var shellBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// quickStartKubectlLines returns the kubectl command lines of the README's
// sh blocks, without their comments.
func quickStartKubectlLines(t *testing.T, readme string) []string {
	t.Helper()
	var lines []string
	for _, block := range shellBlock.FindAllStringSubmatch(readme, -1) {
		for _, line := range strings.Split(block[1], "\n") {
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "kubectl ") {
				lines = append(lines, line)
			}
		}
	}
	if len(lines) < 5 {
		t.Fatalf("README.md's quick start has %d kubectl lines; the test expects the walk-through", len(lines))
	}
	return lines
}
