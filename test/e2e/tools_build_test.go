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

// toolBuildTimeout bounds one `make kubectl|helm|controller`: a cold Helm
// build is about ten minutes of CPU.
const toolBuildTimeout = 20 * time.Minute

// makeTool builds a pinned client into out with its Makefile target
// (`make kubectl KUBECTL_BIN=out`), the one place that derives its
// version stamp from its go.mod: a plain `go build` of kubectl reports a
// version `kubectl version` cannot parse, and Helm's says v4.3.
func makeTool(target, binVar, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), toolBuildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "-s", target, binVar+"="+out)
	cmd.Dir = repoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make %s %s=%s: %w\n%s", target, binVar, out, err, output)
	}
	fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", target, time.Since(start).Round(time.Second))
	return nil
}

// tool is a pinned client only some tests run (Helm, the test
// controller): it is built on first use, unless its environment variable
// points at a prebuilt one, as `make test` does.
type tool struct {
	target, binVar, env string
	once                sync.Once
	path                string
	err                 error
}

var (
	helmTool       = &tool{target: "helm", binVar: "HELM_BIN", env: "HELM"}
	controllerTool = &tool{target: "controller", binVar: "CONTROLLER_BIN", env: "CONTROLLER"}
)

// Path returns the tool's binary, building it the first time.
func (b *tool) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if p := os.Getenv(b.env); p != "" {
			b.path, b.err = prebuilt(p)
			return
		}
		b.path = filepath.Join(binDir, b.target)
		b.err = makeTool(b.target, b.binVar, b.path)
	})
	if b.err != nil {
		t.Fatalf("%s: %v", b.target, b.err)
	}
	return b.path
}
