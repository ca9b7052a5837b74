package aggregated

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/internal/testpki"
)

// pki is the host's key material, written as files into dir.
type pki struct {
	dir        string
	clusterCA  *testpki.CA // serving and client certificates of the host
	frontProxy *testpki.CA // the aggregator's client certificate
}

func newPKI(t testing.TB, dir string) *pki {
	t.Helper()
	p := &pki{dir: dir, clusterCA: testpki.NewCA(t, "cluster-ca"), frontProxy: testpki.NewCA(t, "front-proxy-ca")}
	p.write(t, "ca.crt", p.clusterCA.PEM())
	p.write(t, "front-proxy-ca.crt", p.frontProxy.PEM())
	p.leaf(t, p.clusterCA, "apiserver", x509.ExtKeyUsageServerAuth, "kubernetes", nil,
		[]string{"localhost", "kubernetes.default.svc"}, []net.IP{net.ParseIP("127.0.0.1")})
	p.leaf(t, p.frontProxy, "front-proxy-client", x509.ExtKeyUsageClientAuth, "front-proxy-client", nil, nil, nil)
	p.serviceAccountKey(t)
	return p
}

// path is the file name in the PKI's directory.
func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

func (p *pki) write(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p.path(name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// client makes NAME.crt and NAME.key: a client certificate of the
// cluster CA for user in groups.
func (p *pki) client(t testing.TB, name, user string, groups ...string) {
	t.Helper()
	p.leaf(t, p.clusterCA, name, x509.ExtKeyUsageClientAuth, user, groups, nil, nil)
}

func (p *pki) leaf(t testing.TB, ca *testpki.CA, name string, usage x509.ExtKeyUsage, cn string, orgs, dns []string, ips []net.IP) {
	t.Helper()
	cert, key := ca.Leaf(t, &x509.Certificate{Subject: pkix.Name{CommonName: cn, Organization: orgs},
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: dns, IPAddresses: ips})
	p.write(t, name+".crt", testpki.CertPEM(cert))
	p.write(t, name+".key", testpki.KeyPEM(t, key))
}

// serviceAccountKey writes sa.key and sa.pub, the key pair the host
// signs and checks service account tokens with.
func (p *pki) serviceAccountKey(t testing.TB) {
	t.Helper()
	key := testpki.NewKey(t)
	p.write(t, "sa.key", testpki.KeyPEM(t, key))
	p.write(t, "sa.pub", testpki.PublicKeyPEM(t, key))
}
