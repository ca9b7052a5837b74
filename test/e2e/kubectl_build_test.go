package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// makeKubectl builds the pinned kubectl into out with `make kubectl`, the
// one place that derives its version stamp from test/kubectl/go.mod: a
// plain `go build` of it reports a version `kubectl version` cannot parse.
func makeKubectl(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "-s", "kubectl", "KUBECTL_BIN="+out)
	cmd.Dir = repoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make kubectl KUBECTL_BIN=%s: %w\n%s", out, err, output)
	}
	fmt.Fprintf(os.Stderr, "e2e: built kubectl in %s\n", time.Since(start).Round(time.Second))
	return nil
}
