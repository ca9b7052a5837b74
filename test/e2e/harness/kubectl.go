package harness

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

// KubectlTimeout bounds one kubectl run.
const KubectlTimeout = 30 * time.Second

// Kubectl runs the pinned kubectl against one specd, with its own
// kubeconfig and home directory (so discovery caches never mix servers).
type Kubectl struct {
	kubeconfig string
	home       string
	Dir        string // a scratch directory for manifests
	// Env is more environment for every run (KUBECTL_APPLYSET=true).
	Env []string
	// Timeout bounds one run; KubectlTimeout when zero.
	Timeout time.Duration
}

// KubectlResult is one kubectl run.
type KubectlResult struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int
}

// String is the run as a failure message shows it.
func (r KubectlResult) String() string {
	return fmt.Sprintf("kubectl %s\nexit %d\n--- stdout ---\n%s--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.Code, r.Stdout, r.Stderr)
}

// NewKubectl writes a kubeconfig for s (server http://127.0.0.1:PORT, no
// credentials, namespace default), or uses the admin kubeconfig specd
// wrote when s is Secure, and returns a runner that uses it.
func NewKubectl(t testing.TB, s *Specd) *Kubectl {
	t.Helper()
	dir := t.TempDir()
	k := &Kubectl{home: filepath.Join(dir, "home"), Dir: filepath.Join(dir, "manifests")}
	for _, d := range []string{k.home, k.Dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if s.Kubeconfig != "" {
		k.kubeconfig = s.Kubeconfig
		return k
	}
	k.kubeconfig = WriteFile(t, dir, "kubeconfig", fmt.Sprintf(`apiVersion: v1
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
func (k *Kubectl) Run(t testing.TB, args ...string) KubectlResult {
	t.Helper()
	timeout := KubectlTimeout
	if k.Timeout > 0 {
		timeout = k.Timeout
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := k.Command(ctx, append([]string{"--request-timeout", "20s"}, args...)...)
	cmd.Env = append(cmd.Env, k.Env...)
	var stdout, stderr SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := KubectlResult{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
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

// Command is kubectl with args, run under ctx, with k's kubeconfig,
// cache and home: a user's preferences (kuberc) and home must not change
// what is tested.
func (k *Kubectl) Command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, Binaries.Kubectl, full...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig, "KUBERC=off", "NO_COLOR=1")
	return cmd
}

// OK runs kubectl and fails the test unless it exits 0; it returns stdout.
func (k *Kubectl) OK(t testing.TB, args ...string) string {
	t.Helper()
	r := k.Run(t, args...)
	if r.Code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	return r.Stdout
}

// Fail runs kubectl, fails the test unless it exits non-zero, and returns
// stderr.
func (k *Kubectl) Fail(t testing.TB, args ...string) string {
	t.Helper()
	r := k.Run(t, args...)
	if r.Code == 0 {
		t.Fatalf("want a non-zero exit:\n%s", r)
	}
	return r.Stderr
}

// Manifest writes a manifest into the scratch directory and returns its path.
func (k *Kubectl) Manifest(t testing.TB, name, content string) string {
	t.Helper()
	return WriteFile(t, k.Dir, name, content)
}
