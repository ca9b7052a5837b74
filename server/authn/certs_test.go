package authn_test

import (
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testpki"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// testCA is a certificate authority made for one test.
type testCA struct{ *testpki.CA }

func newCA(t testing.TB, name string) *testCA { return &testCA{testpki.NewCA(t, name)} }

// provider is the CA as the TLS setup hands it to authn.
func (ca *testCA) provider(t testing.TB) dynamiccertificates.CAContentProvider {
	t.Helper()
	p, err := dynamiccertificates.NewStaticCAContent("client-ca", ca.pem())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (ca *testCA) pem() []byte { return ca.PEM() }

// client issues a client certificate valid from notBefore to notAfter.
func (ca *testCA) client(t testing.TB, cn string, orgs []string, notBefore, notAfter time.Time) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key := testpki.NewKey(t)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return testpki.Sign(t, tmpl, ca.Cert, key, ca.Key), key
}

// valid issues a client certificate valid now.
func (ca *testCA) valid(t testing.TB, cn string, orgs ...string) *x509.Certificate {
	t.Helper()
	cert, _ := ca.client(t, cn, orgs, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	return cert
}

// badSignature returns cert with one bit of its signature flipped.
func badSignature(t testing.TB, cert *x509.Certificate) *x509.Certificate {
	t.Helper()
	der := append([]byte(nil), cert.Raw...)
	der[len(der)-3] ^= 0x01
	bad, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// certRequest is a request that came over TLS with the given client chain.
func certRequest(certs ...*x509.Certificate) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/api", nil)
	req.TLS = &tls.ConnectionState{PeerCertificates: certs}
	return req
}
