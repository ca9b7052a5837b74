package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// toolBuildTimeout bounds one `make kubectl|helm|controller`: a cold Helm
// build is about ten minutes of CPU, and a build may first wait for
// another package's build of the same tool.
const toolBuildTimeout = 20 * time.Minute

// toolsDir is where the pinned tools are built, shared by every e2e
// package and every run: the e2e packages run as processes of their own,
// often at once, and a cold kubectl build takes minutes.
var toolsDir = filepath.Join(RepoRoot, "bin", "e2e")

// Tool is a pinned client the tests run, built from a module of its own
// under test/ (kubectl, Helm, the test controller), unless its
// environment variable points at a prebuilt one, as `make test` does.
type Tool struct {
	target, binVar, env string
	once                sync.Once
	path                string
	err                 error
}

var (
	kubectlTool    = &Tool{target: "kubectl", binVar: "KUBECTL_BIN", env: "KUBECTL"}
	HelmTool       = &Tool{target: "helm", binVar: "HELM_BIN", env: "HELM"}
	ControllerTool = &Tool{target: "controller", binVar: "CONTROLLER_BIN", env: "CONTROLLER"}
)

// Path returns the tool's binary, building it the first time.
func (b *Tool) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if p := os.Getenv(b.env); p != "" {
			b.path, b.err = prebuilt(p)
			return
		}
		b.path, b.err = b.build()
	})
	if b.err != nil {
		t.Fatalf("%s: %v", b.target, b.err)
	}
	return b.path
}

// build returns the tool's binary in toolsDir, named by a hash of what
// it is built from (its module under test/, the Makefile, the Go
// release), and builds it unless it is there: once for all the e2e
// packages, which take turns through a lock file.
func (b *Tool) build() (string, error) {
	key, err := b.sourceKey()
	if err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(toolsDir, b.target+"-"+key))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	unlock, err := lockFile(out + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil { // built while this waited
		return out, nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	defer os.Remove(tmp)
	if err := makeTool(b.target, b.binVar, tmp); err != nil {
		return "", err
	}
	return out, os.Rename(tmp, out)
}

// sourceKey hashes the files of the tool's module (test/TARGET), the
// Makefile that stamps its version, and the Go release.
func (b *Tool) sourceKey() (string, error) {
	h := sha256.New()
	h.Write([]byte(runtime.Version() + "\n"))
	files := []string{filepath.Join(RepoRoot, "Makefile")}
	err := filepath.WalkDir(filepath.Join(RepoRoot, "test", b.target), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", b.target, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// lockFile holds an exclusive lock on path, made if need be, until the
// returned function is called.
func lockFile(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// makeTool builds a pinned client into out with its Makefile target
// (`make kubectl KUBECTL_BIN=out`), the one place that derives its
// version stamp from its go.mod: a plain `go build` of kubectl reports a
// version `kubectl version` cannot parse, and Helm's says v4.3.
func makeTool(target, binVar, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), toolBuildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "-s", target, binVar+"="+out)
	cmd.Dir = RepoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make %s %s=%s: %w\n%s", target, binVar, out, err, output)
	}
	fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", target, time.Since(start).Round(time.Second))
	return nil
}
