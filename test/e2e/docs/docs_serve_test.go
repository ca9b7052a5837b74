package docs

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/internal/testproc"
	"github.com/specd-io/specd/test/e2e/harness"
)

// docServeMark is the line (blank lines aside) before a sh block whose `specd serve` lines
// TestDocServeLines runs.
const docServeMark = "<!-- docs-test: serve -->"

// serveLine is one `specd serve` command of a marked block.
type serveLine struct {
	Page string
	Line int
	Args []string // after "specd"
}

// TestDocServeLines runs every `specd serve` line of the sh blocks that
// docs mark (docs-test: serve) as written but for --listen, in a new
// directory holding the repository's examples/ and the page's files,
// until /readyz answers 200; then stops it. Only the README's first
// command was run before, and six of the docs' own failed on a clean
// clone (issue 30).
func TestDocServeLines(t *testing.T) {
	t.Parallel()
	lines := markedServeLines(t)
	if len(lines) == 0 {
		t.Fatal("no page marks a sh block of specd serve lines")
	}
	for _, l := range lines {
		t.Run(fmt.Sprintf("%s:%d", l.Page, l.Line), func(t *testing.T) {
			t.Parallel()
			runServeLine(t, l)
		})
	}
}

// markedServeLines returns the specd serve lines of every marked block.
func markedServeLines(t *testing.T) []serveLine {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(harness.RepoRoot, "docs", "*.md"))
	var out []serveLine
	for _, file := range append(files, filepath.Join(harness.RepoRoot, "README.md")) {
		name, _ := filepath.Rel(harness.RepoRoot, file)
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := parseServeLines(name, string(md))
		if err != nil {
			t.Errorf("%s:%v", name, err)
		}
		out = append(out, ls...)
	}
	return out
}

// parseServeLines returns the specd serve lines of a page's marked
// blocks, a line ending in \ going on on the next.
func parseServeLines(page, md string) ([]serveLine, error) {
	fs, err := harness.Fences(md)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(md, "\n")
	var out []serveLine
	for _, f := range fs {
		if !markedBlock(lines, f.Line) {
			continue
		}
		if f.Info != "sh" {
			return nil, fmt.Errorf("%d: the block after %s is %q, not sh", f.Line, docServeMark, f.Info)
		}
		n := len(out)
		for i := 0; i < len(f.Lines); i++ {
			cmd, at := f.Lines[i], f.Line+1+i
			for strings.HasSuffix(strings.TrimSpace(cmd), `\`) && i+1 < len(f.Lines) {
				i++
				cmd = strings.TrimSuffix(strings.TrimSpace(cmd), `\`) + " " + strings.TrimSpace(f.Lines[i])
			}
			cmd, _, _ = strings.Cut(cmd, "#")
			words, err := shellWords(strings.TrimSpace(cmd))
			if err != nil {
				return nil, fmt.Errorf("%d: %v", at, err)
			}
			if len(words) > 1 && words[0] == "specd" && words[1] == "serve" {
				out = append(out, serveLine{Page: page, Line: at, Args: words[1:]})
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%d: the block after %s has no specd serve line", f.Line, docServeMark)
		}
	}
	return out, nil
}

// markedBlock says whether the last line before the fence at line (1-based)
// that is not blank is docServeMark.
func markedBlock(lines []string, line int) bool {
	for i := line - 2; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l == docServeMark
		}
	}
	return false
}

// certFiles are files serve lines name that the test makes: what
// security.md tells readers to bring.
var certFiles = []string{"server.crt", "server.key", "clients-ca.crt"}

func runServeLine(t *testing.T, l serveLine) {
	md, err := os.ReadFile(filepath.Join(harness.RepoRoot, l.Page))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkdir(t)
	steps, err := parseWorkdir(string(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Cmd == nil {
			if err := w.writeFile(s.File, s.Content); err != nil {
				t.Fatal(err)
			}
		}
	}
	if slices.ContainsFunc(l.Args, func(a string) bool { return slices.Contains(certFiles, a) }) {
		writeCerts(t, w.dir)
	}
	args := withLoopbackPort(l.Args)
	cmd := exec.Command(harness.Binaries.Specd, args...)
	cmd.Dir = w.dir
	proc, err := testproc.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !proc.Stop(os.Interrupt, 30*time.Second) {
			t.Errorf("specd did not stop within 30s of SIGINT")
		}
		if t.Failed() {
			t.Logf("--- specd's log ---\n%s", proc.Out().String())
		}
	})
	waitServeReady(t, proc, filepath.Join(w.dir, flagValue(args, "--data-dir", "data"), "admin.kubeconfig"))
}

// waitServeReady waits until /readyz answers 200: as the admin of the
// kubeconfig specd wrote, or, when it wrote none (its own certificates,
// plain HTTP), with no credentials and no check of the certificate: the
// line is proved to serve, not who may call it.
func waitServeReady(t *testing.T, proc *testproc.Proc, kubeconfig string) {
	t.Helper()
	var last string
	harness.WaitFor(t, harness.ReadyTimeout, "specd serve ready", func() bool {
		if proc.Exited() {
			t.Fatalf("specd exited: %v\n%s", proc.Err(), proc.Out().String())
		}
		m := harness.ServingLine.FindStringSubmatch(proc.Out().String())
		if m == nil {
			return false
		}
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		if cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err == nil {
			if client, err = rest.HTTPClientFor(cfg); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := client.Get(m[1] + "://" + m[2] + "/readyz")
		if err != nil {
			last = err.Error()
			return false
		}
		resp.Body.Close()
		last = resp.Status
		return resp.StatusCode == http.StatusOK
	})
	t.Logf("ready: %s", last)
}

// writeCerts writes a serving certificate for 127.0.0.1 and the CA of
// client certificates, as an operator brings them.
func writeCerts(t *testing.T, dir string) {
	t.Helper()
	servingCA, clientCA := harness.NewAuthCA(t, "serving-ca"), harness.NewAuthCA(t, "clients-ca")
	crt, key := servingCA.Issue(t, pkix.Name{CommonName: "specd"}, x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1))
	harness.WriteFile(t, dir, "server.crt", string(crt))
	harness.WriteFile(t, dir, "server.key", string(key))
	harness.WriteFile(t, dir, "clients-ca.crt", string(clientCA.CertPEM()))
}
