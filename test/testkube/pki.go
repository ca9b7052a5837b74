package testkube

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/specd-io/specd/internal/testpki"
)

// pki are the files of one kube-apiserver: its CA (which also signs the
// admin's client certificate), its serving certificate and the service
// account key.
type pki struct {
	dir   string
	ca    *testpki.CA
	admin tls.Certificate
}

func newPKI(t testing.TB, dir string) *pki {
	t.Helper()
	p := &pki{dir: dir, ca: testpki.NewCA(t, "testkube-ca")}
	p.write(t, "ca.crt", testpki.CertPEM(p.ca.Cert))
	sa := testpki.NewKey(t)
	p.write(t, "sa.key", testpki.KeyPEM(t, sa))
	p.write(t, "sa.pub", testpki.PublicKeyPEM(t, sa))
	p.admin = p.sign(t, "admin", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return p
}

// serving writes the serving certificate for 127.0.0.1.
func (p *pki) serving(t testing.TB) {
	t.Helper()
	p.sign(t, "serving", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// sign makes NAME.crt and NAME.key of tmpl, signed by the CA.
func (p *pki) sign(t testing.TB, name string, tmpl *x509.Certificate) tls.Certificate {
	t.Helper()
	cert, key := p.ca.Leaf(t, tmpl)
	p.write(t, name+".crt", testpki.CertPEM(cert))
	p.write(t, name+".key", testpki.KeyPEM(t, key))
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
}

func (p *pki) write(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// kubeconfig writes admin.kubeconfig for the server at url.
func (p *pki) kubeconfig(t testing.TB, url string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kube"] = &clientcmdapi.Cluster{Server: url, CertificateAuthority: filepath.Join(p.dir, "ca.crt")}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: filepath.Join(p.dir, "admin.crt"), ClientKey: filepath.Join(p.dir, "admin.key")}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "kube", AuthInfo: "admin", Namespace: "default"}
	cfg.CurrentContext = "admin"
	path := filepath.Join(p.dir, "admin.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
