package testkube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/internal/testproc"
)

// port is kube-apiserver's port on its loopback address.
const port = 6443

// readyTimeout bounds kube-apiserver's start to /readyz.
const readyTimeout = 2 * time.Minute

// APIServer is a running kube-apiserver.
type APIServer struct {
	// URL is where it serves: https://127.X.Y.Z:6443.
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
	for range 5 {
		s, err := start(t, bin, dir, p, etcd, randomLoopback())
		if err == nil {
			return s
		}
		if !errors.Is(err, errAddressInUse) {
			t.Fatal(err)
		}
	}
	t.Fatal("testkube: five loopback addresses in use")
	return nil
}

var errAddressInUse = errors.New("testkube: address in use")

// randomLoopback is an address of 127.0.0.0/8 other than 127.0.0.1.
func randomLoopback() net.IP {
	return net.IPv4(127, byte(1+rand.IntN(254)), byte(rand.IntN(256)), byte(1+rand.IntN(254)))
}

// start runs kube-apiserver on ip and waits for its /readyz.
func start(t testing.TB, bin, dir string, p *pki, etcd []string, ip net.IP) (*APIServer, error) {
	t.Helper()
	p.serving(t, ip)
	s := &APIServer{URL: fmt.Sprintf("https://%s", net.JoinHostPort(ip.String(), fmt.Sprint(port)))}
	s.Kubeconfig = p.kubeconfig(t, s.URL)
	proc, err := testproc.Start(exec.Command(bin, flags(dir, ip, etcd)...))
	if err != nil {
		return nil, err
	}
	s.proc = proc
	if err := s.waitReady(p); err != nil {
		proc.Kill()
		if strings.Contains(proc.Out().String(), "address already in use") {
			return nil, errAddressInUse
		}
		return nil, fmt.Errorf("%w\n%s", err, tail(proc.Out().String()))
	}
	t.Cleanup(func() {
		if !proc.Stop(syscall.SIGTERM, 30*time.Second) {
			t.Errorf("kube-apiserver did not stop within 30s of SIGTERM")
		}
	})
	return s, nil
}

// flags are kube-apiserver's: the least it runs with, RBAC on.
func flags(dir string, ip net.IP, etcd []string) []string {
	f := func(name string) string { return filepath.Join(dir, name) }
	return []string{
		"--etcd-servers=" + strings.Join(etcd, ","),
		"--bind-address=" + ip.String(), "--advertise-address=" + ip.String(), fmt.Sprintf("--secure-port=%d", port),
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
