package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// AdminUser and AdminGroup are the identity of the generated admin client
// certificate: CN is the user, O the group, as kube's x509 authenticator
// reads them. system:masters is always allowed by RBAC.
const (
	AdminUser  = "specd-admin"
	AdminGroup = "system:masters"
)

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// renewBefore: a leaf certificate that expires sooner is made again
	// on start, so a specd restarted now and then never serves an expired
	// one.
	renewBefore = 30 * 24 * time.Hour
)

// Files are the paths of the generated TLS material in a data directory.
type Files struct {
	CACert, CAKey           string
	ServingCert, ServingKey string
	AdminCert, AdminKey     string
}

// filesIn names the files Ensure keeps in dir.
func filesIn(dir string) Files {
	p := func(name string) string { return filepath.Join(dir, name) }
	return Files{
		CACert: p("ca.crt"), CAKey: p("ca.key"),
		ServingCert: p("serving.crt"), ServingKey: p("serving.key"),
		AdminCert: p("admin.crt"), AdminKey: p("admin.key"),
	}
}

// authority is a CA that signs leaf certificates.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// Ensure makes sure dir holds a CA, a serving certificate signed by it for
// hosts plus localhost, 127.0.0.1 and ::1, and an admin client
// certificate, generating what is missing, unreadable, not signed by the
// CA or close to expiry. What is still good is kept: a restart keeps the
// CA that clients trust, and only a serving certificate that does not
// cover every host is made again. Keys are written 0600.
func Ensure(dir string, hosts []string) (Files, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, fmt.Errorf("certs: %w", err)
	}
	f := filesIn(dir)
	ca, err := ensureCA(f)
	if err != nil {
		return Files{}, err
	}
	hosts = slices.Concat(hosts, []string{"localhost", "127.0.0.1", "::1"})
	serving := leafSpec{subject: pkix.Name{CommonName: "specd"}, usage: x509.ExtKeyUsageServerAuth, hosts: hosts}
	if err := ensureLeaf(ca, f.ServingCert, f.ServingKey, serving); err != nil {
		return Files{}, err
	}
	admin := leafSpec{subject: pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}}, usage: x509.ExtKeyUsageClientAuth}
	if err := ensureLeaf(ca, f.AdminCert, f.AdminKey, admin); err != nil {
		return Files{}, err
	}
	return f, nil
}

// ensureCA loads the CA of f, or makes a new one. A new CA replaces the
// leaf certificates too: the old ones are signed by a key that is gone.
func ensureCA(f Files) (authority, error) {
	if ca, err := loadPair(f.CACert, f.CAKey); err == nil && ca.cert.IsCA && time.Until(ca.cert.NotAfter) > renewBefore {
		return ca, nil
	}
	key, err := newKey()
	if err != nil {
		return authority{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("specd-ca@%d", now.Unix())},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	ca, err := sign(tmpl, key, authority{key: key})
	if err != nil {
		return authority{}, err
	}
	if err := writePair(f.CACert, f.CAKey, ca.cert, key); err != nil {
		return authority{}, err
	}
	for _, p := range []string{f.ServingCert, f.ServingKey, f.AdminCert, f.AdminKey} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return authority{}, fmt.Errorf("certs: %w", err)
		}
	}
	return ca, nil
}

// leafSpec is what a leaf certificate must say.
type leafSpec struct {
	subject pkix.Name
	usage   x509.ExtKeyUsage
	hosts   []string // DNS names and IP addresses
}

// ensureLeaf keeps the certificate at certFile if it is signed by ca,
// not close to expiry and covers every host of spec; else it makes a new
// one.
func ensureLeaf(ca authority, certFile, keyFile string, spec leafSpec) error {
	if leaf, err := loadPair(certFile, keyFile); err == nil && fits(leaf.cert, ca, spec) {
		return nil
	}
	key, err := newKey()
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		Subject:     spec.subject,
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(leafValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{spec.usage},
	}
	for _, h := range spec.hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	leaf, err := sign(tmpl, key, ca)
	if err != nil {
		return err
	}
	return writePair(certFile, keyFile, leaf.cert, key)
}

// fits says whether leaf still does what spec asks, signed by ca.
func fits(leaf *x509.Certificate, ca authority, spec leafSpec) bool {
	if leaf.CheckSignatureFrom(ca.cert) != nil || time.Until(leaf.NotAfter) < renewBefore {
		return false
	}
	if leaf.Subject.CommonName != spec.subject.CommonName {
		return false
	}
	for _, h := range spec.hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func newKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: generate key: %w", err)
	}
	return key, nil
}

// sign makes the certificate of tmpl for key, signed by ca (self-signed
// when ca has no certificate yet).
func sign(tmpl *x509.Certificate, key crypto.Signer, ca authority) (authority, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return authority{}, fmt.Errorf("certs: serial number: %w", err)
	}
	tmpl.SerialNumber = serial
	parent := ca.cert
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), ca.key)
	if err != nil {
		return authority{}, fmt.Errorf("certs: sign %s: %w", tmpl.Subject.CommonName, err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return authority{}, fmt.Errorf("certs: %w", err)
	}
	return authority{cert: c, key: key}, nil
}

// loadPair reads a certificate and its key.
func loadPair(certFile, keyFile string) (authority, error) {
	certs, err := cert.CertsFromFile(certFile)
	if err != nil {
		return authority{}, err
	}
	key, err := keyutil.PrivateKeyFromFile(keyFile)
	if err != nil {
		return authority{}, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return authority{}, fmt.Errorf("certs: %s: not a signing key", keyFile)
	}
	return authority{cert: certs[0], key: signer}, nil
}

// FilesIn are the paths Ensure writes in dir: where a server that
// generated its certificates keeps its CA (Files.CACert).
func FilesIn(dir string) Files { return filesIn(dir) }
