package etcdtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// TLS is an etcd that requires client certificates, and the files a
// client needs to reach it.
type TLS struct {
	// Endpoints are its https:// client URLs.
	Endpoints []string
	// CAFile signs both its serving certificate and the client's.
	CAFile string
	// CertFile and KeyFile are a client certificate it accepts.
	CertFile, KeyFile string
}

// StartTLS starts an etcd on loopback that serves TLS and refuses clients
// without a certificate signed by a CA made for the test. It listens on a
// port the kernel picks (nothing is picked and closed first) and stops
// when tb ends.
func StartTLS(tb testing.TB) TLS {
	tb.Helper()
	dir := tb.TempDir()
	files := writeCerts(tb, dir)
	cfg := embed.NewConfig()
	cfg.Name = "tls"
	cfg.Dir = filepath.Join(dir, "data")
	client := url.URL{Scheme: "https", Host: "127.0.0.1:0"}
	peer := url.URL{Scheme: "unix", Path: filepath.Join(dir, "peer.unused")} // a name, never listened on
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = nil, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.EnableGRPCGateway = false // it would dial the configured port 0
	cfg.ClientTLSInfo.CertFile = filepath.Join(dir, "server.crt")
	cfg.ClientTLSInfo.KeyFile = filepath.Join(dir, "server.key")
	cfg.ClientTLSInfo.TrustedCAFile = files.CAFile
	cfg.ClientTLSInfo.ClientCertAuth = true
	cfg.TickMs, cfg.ElectionMs, cfg.UnsafeNoFsync = 10, 100, true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		tb.Fatalf("start etcd: %v", err)
	}
	var once sync.Once
	tb.Cleanup(func() { once.Do(e.Close) })
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		tb.Fatalf("etcd: %v", err)
	case <-time.After(30 * time.Second):
		tb.Fatal("etcd not ready after 30s")
	}
	for _, l := range e.Clients {
		files.Endpoints = append(files.Endpoints, "https://"+l.Addr().String())
	}
	return files
}

// writeCerts writes into dir a CA, a serving certificate for 127.0.0.1
// (server.crt, server.key) and a client certificate, all signed by the CA.
func writeCerts(tb testing.TB, dir string) TLS {
	tb.Helper()
	caKey := newKey(tb)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "etcdtest CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER := sign(tb, ca, ca, caKey, caKey)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatal(err)
	}
	files := TLS{
		CAFile:   writePEM(tb, dir, "ca.crt", "CERTIFICATE", caDER),
		CertFile: filepath.Join(dir, "client.crt"),
		KeyFile:  filepath.Join(dir, "client.key"),
	}
	for i, leaf := range []struct {
		name  string
		usage x509.ExtKeyUsage
		ips   []net.IP
	}{
		{"server", x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)}},
		{"client", x509.ExtKeyUsageClientAuth, nil},
	} {
		key := newKey(tb)
		der := sign(tb, &x509.Certificate{
			SerialNumber: big.NewInt(int64(i + 2)),
			Subject:      pkix.Name{CommonName: "etcdtest " + leaf.name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{leaf.usage},
			IPAddresses:  leaf.ips,
		}, ca, key, caKey)
		writePEM(tb, dir, leaf.name+".crt", "CERTIFICATE", der)
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			tb.Fatal(err)
		}
		writePEM(tb, dir, leaf.name+".key", "PRIVATE KEY", keyDER)
	}
	return files
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func sign(tb testing.TB, cert, parent *x509.Certificate, key, parentKey *ecdsa.PrivateKey) []byte {
	tb.Helper()
	der, err := x509.CreateCertificate(rand.Reader, cert, parent, &key.PublicKey, parentKey)
	if err != nil {
		tb.Fatal(err)
	}
	return der
}

func writePEM(tb testing.TB, dir, name, kind string, der []byte) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
