package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kubectlTimeout bounds one kubectl run.
const kubectlTimeout = 30 * time.Second

// kubectl runs the pinned kubectl against one specd, with its own
// kubeconfig and home directory (so discovery caches never mix servers).
type kubectl struct {
	kubeconfig string
	home       string
	Dir        string // a scratch directory for manifests
	// Env is more environment for every run (KUBECTL_APPLYSET=true).
	Env []string
	// Timeout bounds one run; kubectlTimeout when zero.
	Timeout time.Duration
}

// kubectlResult is one kubectl run.
type kubectlResult struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int
}

func (r kubectlResult) String() string {
	return fmt.Sprintf("kubectl %s\nexit %d\n--- stdout ---\n%s--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.Code, r.Stdout, r.Stderr)
}

// newKubectl writes a kubeconfig for s (server http://127.0.0.1:PORT, no
// credentials, namespace default), or uses the admin kubeconfig specd
// wrote when s is Secure, and returns a runner that uses it.
func newKubectl(t testing.TB, s *specd) *kubectl {
	t.Helper()
	dir := t.TempDir()
	k := &kubectl{home: filepath.Join(dir, "home"), Dir: filepath.Join(dir, "manifests")}
	for _, d := range []string{k.home, k.Dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if s.Kubeconfig != "" {
		k.kubeconfig = s.Kubeconfig
		return k
	}
	k.kubeconfig = writeFile(t, dir, "kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: specd
  cluster:
    server: %s
users:
- name: specd
  user: {}
contexts:
- name: specd
  context:
    cluster: specd
    user: specd
    namespace: default
current-context: specd
`, s.URL))
	return k
}

// Run runs kubectl with args and returns what it printed and its exit code.
func (k *kubectl) Run(t testing.TB, args ...string) kubectlResult {
	t.Helper()
	timeout := kubectlTimeout
	if k.Timeout > 0 {
		timeout = k.Timeout
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	full := append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache"), "--request-timeout", "20s"}, args...)
	cmd := exec.CommandContext(ctx, binaries.kubectl, full...)
	// A user's preferences (kuberc) and home must not change what is tested.
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig, "KUBERC=off", "NO_COLOR=1")
	cmd.Env = append(cmd.Env, k.Env...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := kubectlResult{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("kubectl %s: no answer within %s\n%s", strings.Join(args, " "), timeout, r)
	case errors.As(err, &exitErr):
		r.Code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("kubectl %s -> exit %d", strings.Join(args, " "), r.Code)
	return r
}

// OK runs kubectl and fails the test unless it exits 0; it returns stdout.
func (k *kubectl) OK(t testing.TB, args ...string) string {
	t.Helper()
	r := k.Run(t, args...)
	if r.Code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	return r.Stdout
}

// Fail runs kubectl, fails the test unless it exits non-zero, and returns
// stderr.
func (k *kubectl) Fail(t testing.TB, args ...string) string {
	t.Helper()
	r := k.Run(t, args...)
	if r.Code == 0 {
		t.Fatalf("want a non-zero exit:\n%s", r)
	}
	return r.Stderr
}

// Manifest writes a manifest into the scratch directory and returns its path.
func (k *kubectl) Manifest(t testing.TB, name, content string) string {
	t.Helper()
	return writeFile(t, k.Dir, name, content)
}
