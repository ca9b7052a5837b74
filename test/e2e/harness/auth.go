package harness

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/specd-io/specd/internal/testpki"
)

// AuthCA is a certificate authority a test makes: for a --client-ca-file,
// or to sign specd's serving certificate (--tls-cert-file).
type AuthCA struct{ *testpki.CA }

// NewAuthCA makes a certificate authority named name.
func NewAuthCA(t testing.TB, name string) *AuthCA { return &AuthCA{testpki.NewCA(t, name)} }

// CertPEM is the CA's certificate as PEM.
func (ca *AuthCA) CertPEM() []byte { return ca.PEM() }

// Issue signs a leaf certificate for usage; ips are its IP SANs.
func (ca *AuthCA) Issue(t testing.TB, subject pkix.Name, usage x509.ExtKeyUsage, ips ...net.IP) (certPEM, keyPEM []byte) {
	t.Helper()
	cert, key := ca.Leaf(t, &x509.Certificate{Subject: subject, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips})
	return testpki.CertPEM(cert), testpki.KeyPEM(t, key)
}

// ClientCert is a client certificate: CN the user, O the groups.
func (ca *AuthCA) ClientCert(t testing.TB, user string, groups ...string) *clientcmdapi.AuthInfo {
	t.Helper()
	cert, key := ca.Issue(t, pkix.Name{CommonName: user, Organization: groups}, x509.ExtKeyUsageClientAuth)
	return &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
}

// OIDCIssuer is an OpenID provider on loopback, over TLS: the discovery
// document and the key set that verify the id tokens it signs.
type OIDCIssuer struct {
	*testpki.Issuer
	CAFile string
}

// OIDCClientID is the audience of the issuer's id tokens.
const OIDCClientID = "specd"

// NewOIDCIssuer starts an OpenID provider for the test, its CA written
// to CAFile.
func NewOIDCIssuer(t testing.TB) *OIDCIssuer {
	t.Helper()
	iss := testpki.NewIssuer(t)
	return &OIDCIssuer{Issuer: iss, CAFile: WriteFile(t, t.TempDir(), "oidc-ca.pem", string(iss.CAPEM()))}
}

// IDToken signs an id token for sub in groups, valid for an hour.
func (iss *OIDCIssuer) IDToken(t testing.TB, sub string, groups ...string) string {
	t.Helper()
	now := time.Now()
	return testpki.SignJWT(t, iss.Key, map[string]any{
		"iss": iss.URL, "aud": OIDCClientID, "sub": sub, "groups": groups,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
}

// UserConfig is a kubeconfig for one user of a secure specd: the cluster of
// base (server and CA) with the user's credentials.
type UserConfig struct {
	Path string
	Rest *rest.Config
}

// WriteUserKubeconfig writes a kubeconfig of base's cluster with user's
// credentials, namespace default.
func WriteUserKubeconfig(t testing.TB, base, name string, user *clientcmdapi.AuthInfo) UserConfig {
	t.Helper()
	admin, err := clientcmd.LoadFromFile(base)
	if err != nil {
		t.Fatal(err)
	}
	cluster := admin.Clusters[admin.Contexts[admin.CurrentContext].Cluster]
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["specd"] = cluster
	cfg.AuthInfos[name] = user
	cfg.Contexts["specd"] = &clientcmdapi.Context{Cluster: "specd", AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = "specd"
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p); err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", p)
	if err != nil {
		t.Fatal(err)
	}
	rc.Timeout, rc.QPS, rc.Burst = 20*time.Second, 1000, 1000
	return UserConfig{Path: p, Rest: rc}
}

// KubectlWith is a kubectl runner for s that uses the kubeconfig at path.
func KubectlWith(t testing.TB, s *Specd, path string) *Kubectl {
	t.Helper()
	k := NewKubectl(t, s)
	k.kubeconfig = path
	return k
}

// HTTPClientFor is an HTTP client with cfg's TLS and credentials.
func HTTPClientFor(t testing.TB, cfg *rest.Config) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = ClientTimeout
	return c
}

// CAPool trusts the PEM certificates given.
func CAPool(t testing.TB, pems ...[]byte) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	for _, p := range pems {
		if !pool.AppendCertsFromPEM(p) {
			t.Fatal("no certificate in PEM")
		}
	}
	return pool
}
