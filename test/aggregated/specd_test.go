package aggregated

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// specdServing is the line specd logs once it serves.
var specdServing = regexp.MustCompile(`msg=serving address=(https://127\.0\.0\.1:\d+)`)

// The host Service in front of specd: an ExternalName Service named
// localhost, which the aggregator resolves by name (kube refuses
// loopback addresses in Endpoints).
const (
	specdNamespace = "specd-system"
	specdService   = "specd"
)

// specd is specd serving aggregated in a host.
type specd struct {
	h       *host
	dir     string // its data directory
	schemas string // its schema directory, the test's copy
	proc    *proc
	url     string
	// admin is the kubeconfig specd wrote for its own admin: a local
	// user, authorized by specd's RBAC.
	admin string
	// kubeconfig is specd's identity in the host: its service account.
	kubeconfig string
	// flags are specd's beyond those of every start: how its
	// APIServices are made.
	flags []string
}

// setUpSpecd applies specd's host objects from the chart (chartValues),
// and starts specd registering its APIServices (registerFlags).
func setUpSpecd(t testing.TB, h *host, more ...string) *specd {
	t.Helper()
	installChart(t, h, nil)
	return startSpecd(t, h, registerFlags, more...)
}

// registerFlags have specd write its APIServices, which follow its port
// (--apiservice-port=0), with the CA it generates for the Service's name.
var registerFlags = []string{"--register-apiservices",
	"--apiservice-service", specdNamespace + "/" + specdService, "--apiservice-port", "0",
	"--tls-sans", specdService + "." + specdNamespace + ".svc"}

// startSpecd applies the ExternalName Service and starts specd with
// flags on a copy of examples/schemas (and of the more directories of
// the repository) with the host identity of its service account.
func startSpecd(t testing.TB, h *host, flags []string, more ...string) *specd {
	t.Helper()
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: specdService, Namespace: specdNamespace},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}}
	if _, err := h.client.CoreV1().Services(specdNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := &specd{h: h, dir: filepath.Join(h.dir, "specd"), schemas: filepath.Join(h.dir, "schemas"), flags: flags}
	for _, dir := range append([]string{"examples/schemas"}, more...) {
		if err := os.CopyFS(s.schemas, os.DirFS(filepath.Join(repoRoot, dir))); err != nil {
			t.Fatal(err)
		}
	}
	s.kubeconfig = h.tokenKubeconfig(t, "specd", serviceAccountToken(t, h, chartRelease))
	s.start(t)
	return s
}

// start starts specd on a free loopback port.
func (s *specd) start(t testing.TB) {
	t.Helper()
	s.proc = &proc{name: "specd", dir: s.h.dir, args: append([]string{binaries.specd, "serve",
		"--schemas", s.schemas, "--data-dir", s.dir, "--listen", "127.0.0.1:0", "--plugins", binaries.plugins,
		"--aggregated", "--kubeconfig", s.kubeconfig}, s.flags...)}
	s.proc.start(t)
	s.url = s.proc.await(t, specdServing, 60*time.Second)[1]
	s.admin = filepath.Join(s.dir, "admin.kubeconfig")
}

// kubectl runs the pinned kubectl with kubeconfig and returns its
// standard output; it fails the test unless kubectl succeeds.
func kubectl(t testing.TB, kubeconfig string, args ...string) string {
	t.Helper()
	out, errOut, err := tryKubectl(kubeconfig, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// tryKubectl runs kubectl and returns its outputs and how it ended.
func tryKubectl(kubeconfig string, args ...string) (stdout, stderr string, err error) {
	return tryKubectlIn(kubeconfig, "", args...)
}

// tryKubectlIn is tryKubectl with stdin as kubectl's standard input.
func tryKubectlIn(kubeconfig, stdin string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaries.kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Dir = repoRoot
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// exitCode is the status a command ended with, -1 if it did not exit.
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// eventually retries cond until it holds or timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; last: %s", what, timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// restConfigAs is a client configuration of specd itself, trusting its
// CA, with the host client certificate NAME.crt.
func (s *specd) restConfigAs(t testing.TB, h *host, name string) *rest.Config {
	t.Helper()
	return &rest.Config{Host: s.url, TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(s.dir, "ca.crt"),
		CertFile: h.pki.path(name + ".crt"), KeyFile: h.pki.path(name + ".key")}}
}
