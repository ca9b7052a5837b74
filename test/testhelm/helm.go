package testhelm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one helm command.
const Timeout = 3 * time.Minute

// Run runs the helm binary bin with args and an empty home of its own; it
// returns stdout, and stderr in the error.
func Run(t testing.TB, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// ValuesFile writes values (JSON is YAML) for `helm -f`, which takes
// commas as separators: the file's path (from the test's name) must have
// none.
func ValuesFile(t testing.TB, values map[string]any) string {
	t.Helper()
	data, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Template renders chart with values as release in namespace.
func Template(t testing.TB, bin, chart, release, namespace string, values map[string]any) (string, error) {
	t.Helper()
	return Run(t, bin, "template", release, chart, "--namespace", namespace, "-f", ValuesFile(t, values))
}
