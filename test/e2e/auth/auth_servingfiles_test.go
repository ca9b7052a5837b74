package auth

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/test/e2e/harness"
)

// generatedFiles are what specd writes into --data-dir when it makes its
// own certificates (server/certs).
var generatedFiles = []string{"ca.crt", "ca.key", "serving.crt", "serving.key", "admin.crt", "admin.key", "admin.kubeconfig"}

// TestAuthServingCertFiles: with --tls-cert-file and
// --tls-private-key-file specd serves the test's certificate, a
// kubeconfig that trusts the test's CA works, and nothing is generated
// in the data dir.
func TestAuthServingCertFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	servingCA, clientCA := harness.NewAuthCA(t, "test-serving-ca"), harness.NewAuthCA(t, "test-client-ca")
	cert, key := servingCA.Issue(t, pkix.Name{CommonName: "specd"}, x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1))
	s := startWithServingFiles(t, []string{
		"--tls-cert-file", harness.WriteFile(t, dir, "serving.crt", string(cert)),
		"--tls-private-key-file", harness.WriteFile(t, dir, "serving.key", string(key)),
		"--client-ca-file", harness.WriteFile(t, dir, "client-ca.pem", string(clientCA.CertPEM())),
	})

	// The kubeconfig: the test's CA, and an admin of the client CA.
	base := harness.WriteFile(t, dir, "base.kubeconfig", fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: specd\n  cluster:\n    server: %s\n"+
		"    certificate-authority: %s\ncontexts:\n- name: specd\n  context: {cluster: specd}\ncurrent-context: specd\n", s.URL, filepath.Join(dir, "ca.pem")))
	harness.WriteFile(t, dir, "ca.pem", string(servingCA.CertPEM()))
	admin := harness.WriteUserKubeconfig(t, base, "root", clientCA.ClientCert(t, "root", "system:masters"))
	client := harness.HTTPClientFor(t, admin.Rest)
	harness.Converge(t, "/readyz", func() (bool, string) {
		r := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/readyz"})
		return r.Code == http.StatusOK, r.Body
	})
	k := harness.KubectlWith(t, s, admin.Path)
	checkWhoami(t, k, "root", []string{"system:masters", "system:authenticated"})
	k.OK(t, "create", "-f", k.Manifest(t, "w.yaml", harness.WidgetYAML("default", "w1")))
	if got := k.OK(t, "get", "widgets", "-o", "name"); got != "widget.shop.example.com/w1\n" {
		t.Errorf("kubectl get: %q", got)
	}

	checkServedCert(t, s.Addr, servingCA, cert)
	for _, name := range generatedFiles {
		if _, err := os.Stat(filepath.Join(s.DataDir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s in the data dir: %v, want none", name, err)
		}
	}
}

// startWithServingFiles starts a secure specd with args and waits until it
// serves. The harness's Secure start reads the admin kubeconfig that
// specd writes only when it generates its certificates; here it does not.
func startWithServingFiles(t *testing.T, args []string) *harness.Specd {
	t.Helper()
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: args, NoWait: true})
	deadline := time.Now().Add(harness.ReadyTimeout)
	for s.Addr == "" {
		if m := harness.ServingLine.FindStringSubmatch(s.Stderr.String()); m != nil {
			s.Addr, s.URL = m[2], m[1]+"://"+m[2]
			break
		}
		select {
		case <-s.Exited:
			t.Fatalf("specd exited before it served: %v", s.ExitErr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("specd did not log its serving address")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// checkServedCert checks that specd at addr presents certPEM, which
// verifies against ca for 127.0.0.1.
func checkServedCert(t *testing.T, addr string, ca *harness.AuthCA, certPEM []byte) {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: harness.CAPool(t, ca.CertPEM()), ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("TLS to specd with the test's CA: %v", err)
	}
	defer conn.Close()
	peer := conn.ConnectionState().PeerCertificates
	if len(peer) == 0 || !slices.Equal(testpki.CertPEM(peer[0]), certPEM) {
		t.Errorf("specd serves another certificate than --tls-cert-file's")
	}
}
