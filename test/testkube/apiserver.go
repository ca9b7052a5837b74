package testkube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/internal/testproc"
)

// servingOn is the line test/kube's kube-apiserver prints first with
// --secure-port=0: where it serves, on a port the kernel picked.
var servingOn = regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)`)

// readyTimeout bounds kube-apiserver's start to /readyz.
const readyTimeout = 2 * time.Minute

// APIServer is a running kube-apiserver.
type APIServer struct {
	// URL is where it serves: https://127.0.0.1:PORT.
	URL string
	// Kubeconfig is an admin's (system:masters) kubeconfig file.
	Kubeconfig string
	proc       *testproc.Proc
}

// Start starts the kube-apiserver binary bin, and stops it when the test
// ends.
func Start(t testing.TB, bin string) *APIServer {
	t.Helper()
	// Not t.TempDir(): kube-apiserver's files are named in its flags,
	// and a short path reads better in its log.
	dir, err := os.MkdirTemp("", "kube-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	_, etcd := etcdtest.StartServing(t)
	p := newPKI(t, dir)
	p.serving(t)
	s, err := start(bin, dir, p, etcd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !s.proc.Stop(syscall.SIGTERM, 30*time.Second) {
			t.Errorf("kube-apiserver did not stop within 30s of SIGTERM")
		}
	})
	s.Kubeconfig = p.kubeconfig(t, s.URL)
	return s
}

// start runs kube-apiserver on a port of 127.0.0.1 it picks and waits for
// its /readyz.
func start(bin, dir string, p *pki, etcd []string) (*APIServer, error) {
	proc, err := testproc.Start(exec.Command(bin, flags(dir, etcd)...))
	if err != nil {
		return nil, err
	}
	s := &APIServer{proc: proc}
	m, err := proc.Await(servingOn, readyTimeout)
	if err == nil {
		s.URL = m[1]
		err = s.waitReady(p)
	}
	if err != nil {
		proc.Kill()
		return nil, fmt.Errorf("%w\n%s", err, tail(proc.Out().String()))
	}
	return s, nil
}

// flags are kube-apiserver's: the least it runs with, RBAC on.
// --secure-port=0 needs test/kube's kube-apiserver (make kube-apiserver).
func flags(dir string, etcd []string) []string {
	f := func(name string) string { return filepath.Join(dir, name) }
	return []string{
		"--etcd-servers=" + strings.Join(etcd, ","),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=0",
		"--tls-cert-file=" + f("serving.crt"), "--tls-private-key-file=" + f("serving.key"),
		"--client-ca-file=" + f("ca.crt"), "--cert-dir=" + dir,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + f("sa.pub"), "--service-account-signing-key-file=" + f("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
		"--authorization-mode=RBAC", "--anonymous-auth=false", "--profiling=false", "--v=1",
	}
}

// waitReady polls /readyz as the admin until it answers 200, the
// process ends, or readyTimeout passes.
func (s *APIServer) waitReady(p *pki) error {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: p.clientTLS()}}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	last := "no answer"
	for {
		if s.proc.Exited() {
			return fmt.Errorf("testkube: kube-apiserver exited: %v", s.proc.Err())
		}
		if resp, err := client.Get(s.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testkube: %s/readyz not 200 within %s (last: %s)", s.URL, readyTimeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tail is the end of a long log.
func tail(s string) string {
	if len(s) > 4000 {
		return "...\n" + s[len(s)-4000:]
	}
	return s
}

// clientTLS is the admin's TLS configuration.
func (p *pki) clientTLS() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(p.ca.Cert)
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{p.admin}}
}
