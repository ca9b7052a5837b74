package certs

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testpki"
)

// TestHandshakeCAs: a Go client sends its certificate only when the
// server asks for its CA, so a host's front proxy and users reach the
// handler only with their CAs in HandshakeCAs; ClientCA stays specd's
// own, which does not verify them.
func TestHandshakeCAs(t *testing.T) {
	f, err := Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	proxyCA := testpki.NewCA(t, "front-proxy-ca")
	more, err := dynamiccertificates.NewStaticCAContent("front-proxy", proxyCA.PEM())
	if err != nil {
		t.Fatal(err)
	}
	key := testpki.NewKey(t)
	leaf := testpki.Sign(t, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "front-proxy-client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, proxyCA.Cert, key, proxyCA.Key)
	pair := tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
	for name, tc := range map[string]struct {
		more dynamiccertificates.CAContentProvider
		want string
	}{
		"asked for":     {more, "HTTP/1.1 front-proxy-client unverified"},
		"not asked for": {nil, "HTTP/1.1 none"},
	} {
		t.Run(name, func(t *testing.T) {
			serving, err := NewServing(t.Context(), ServingConfig{CertFile: f.ServingCert, KeyFile: f.ServingKey,
				ClientCAFiles: []string{f.CACert}, HandshakeCAs: tc.more})
			if err != nil {
				t.Fatal(err)
			}
			url := serveTLS(t, serving)
			cfg := clientTLS(t, f.CACert)
			cfg.Certificates = []tls.Certificate{pair}
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
			if got := testhttp.Do(t, client, testhttp.Request{URL: url}).Body; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
