package testpki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewCA makes a CA named name, valid from an hour ago to an hour from now.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key := NewKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return &CA{Cert: Sign(t, tmpl, tmpl, key, key), Key: key}
}

// NewKey makes an ECDSA P-256 key.
func NewKey(t testing.TB) crypto.Signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// Sign makes the certificate tmpl for key, signed by signer as parent.
func Sign(t testing.TB, tmpl, parent *x509.Certificate, key, signer crypto.Signer) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// PEM is the CA's certificate as PEM.
func (ca *CA) PEM() []byte { return CertPEM(ca.Cert) }

// CertPEM is cert as PEM.
func CertPEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
}

// Leaf signs tmpl for a new key: a random serial, valid from an hour ago
// to an hour from now, for digital signatures; its subject, usages and
// names are tmpl's.
func (ca *CA) Leaf(t testing.TB, tmpl *x509.Certificate) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	key := NewKey(t)
	return Sign(t, tmpl, ca.Cert, key, ca.Key), key
}

// KeyPEM is key as PEM (PKCS #8), as kube's programs and client-go read
// key files.
func KeyPEM(t testing.TB, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// PublicKeyPEM is key's public half as PEM (PKIX): the file that checks
// what key signs, such as kube-apiserver's --service-account-key-file.
func PublicKeyPEM(t testing.TB, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}
