package docs

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/internal/testproc"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestReadmeFirstCommand runs the README's first `specd serve` line as
// written, on a fresh machine's terms: no --plugins, no built plugins, a
// new data directory (the default ./data, in a directory of its own that
// holds the example schemas at the path the README names). It must serve
// until /readyz, and serve the examples that need no plugin. Only the
// port is the test's: --listen 127.0.0.1:0, since 8080 may be taken.
func TestReadmeFirstCommand(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(harness.RepoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	args := readmeServeLine(t, string(readme))
	dir := t.TempDir()
	examples, err := filepath.Abs(harness.ExampleSchemas)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples", "schemas")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(harness.Binaries.Specd, append(args, "--listen", "127.0.0.1:0")...)
	cmd.Dir = dir
	proc, err := testproc.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-proc.Done()
		if t.Failed() {
			t.Logf("--- specd stderr ---\n%s", proc.Out().String())
		}
	})
	client, url := readyClient(t, proc, filepath.Join(dir, "data", "admin.kubeconfig"))
	resp, err := client.Get(url + "/apis/shop.example.com/v1/namespaces/default/widgets")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET widgets: %s", resp.Status)
	}
	if !strings.Contains(proc.Out().String(), "no --plugins directory was given") {
		t.Errorf("specd did not warn that the ships' plugins are not there")
	}
}

// readyClient waits until specd has logged where it serves and /readyz
// answers 200 to the admin of kubeconfig, and returns that admin's client.
func readyClient(t *testing.T, proc *testproc.Proc, kubeconfig string) (*http.Client, string) {
	t.Helper()
	var client *http.Client
	var url string
	harness.WaitFor(t, harness.ReadyTimeout, "specd serve ready", func() bool {
		if client == nil {
			m := harness.ServingLine.FindStringSubmatch(proc.Out().String())
			if m == nil {
				return false
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			if client, err = rest.HTTPClientFor(cfg); err != nil {
				t.Fatal(err)
			}
			client.Timeout, url = 5*time.Second, m[1]+"://"+m[2]
		}
		resp, err := client.Get(url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return client, url
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
