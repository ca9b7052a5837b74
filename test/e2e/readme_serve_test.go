package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/testproc"
)

// TestReadmeFirstCommand runs the README's first `specd serve` line as
// written, on a fresh machine's terms: no --plugins, no built plugins, a
// new data directory (the default ./data, in a directory of its own that
// holds the example schemas at the path the README names). It must serve
// until /readyz, and serve the examples that need no plugin. Only the
// port is the test's: --listen 127.0.0.1:0, since 8080 may be taken.
func TestReadmeFirstCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	args := readmeServeLine(t, string(readme))
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs(exampleSchemas)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples", "schemas")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binaries.specd, append(args, "--listen", "127.0.0.1:0")...)
	cmd.Dir = dir
	s := runSpecd(t, cmd, filepath.Join(dir, "data"))
	if err := s.waitReady(readyTimeout); err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	resp, err := s.Client.Get(s.URL + "/apis/shop.example.com/v1/namespaces/default/widgets")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET widgets: %s", resp.Status)
	}
	if !strings.Contains(s.stderr.String(), "no --plugins directory was given") {
		t.Errorf("specd did not warn that the ships' plugins are not there:\n%s", s.stderr.String())
	}
}

// readmeServeLine is the arguments of the first `specd serve` line in
// README.md's sh blocks, without the comment.
func readmeServeLine(t *testing.T, readme string) []string {
	t.Helper()
	for _, block := range shellBlock.FindAllStringSubmatch(readme, -1) {
		for _, line := range strings.Split(block[1], "\n") {
			line, _, _ = strings.Cut(line, "#")
			if f := strings.Fields(line); len(f) > 1 && f[0] == "specd" && f[1] == "serve" {
				return f[1:]
			}
		}
	}
	t.Fatal("README.md shows no `specd serve` line")
	return nil
}

// runSpecd starts cmd, a `specd serve` over HTTPS whose data directory is
// dataDir, and stops it when the test ends.
func runSpecd(t *testing.T, cmd *exec.Cmd, dataDir string) *specd {
	t.Helper()
	proc, err := testproc.Start(cmd)
	if err != nil {
		t.Fatalf("start specd: %v", err)
	}
	s := &specd{DataDir: dataDir, opts: specdOptions{Secure: true, DataDir: dataDir}}
	s.proc, s.cmd, s.stderr, s.exited = proc, proc.Cmd, proc.Out(), proc.Done()
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			t.Logf("--- specd stderr ---\n%s", s.stderr.String())
		}
	})
	return s
}
