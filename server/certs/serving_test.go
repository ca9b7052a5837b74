package certs

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/specd-io/specd/internal/testhttp"
)

// reloadWait bounds the wait for a changed file to be served.
const reloadWait = 30 * time.Second

// serveTLS serves, on a loopback port the kernel picks, a handler that
// answers which client certificate it got and whether the client CAs of
// serving verify it.
func serveTLS(t *testing.T, serving *Serving) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{TLSConfig: serving.TLSConfig(), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Proto, clientOf(serving, r))
	})}
	go srv.ServeTLS(l, "", "")
	t.Cleanup(func() { srv.Close() })
	return "https://" + l.Addr().String()
}

// clientOf says who sent r: "none", "CN verified" or "CN unverified".
func clientOf(serving *Serving, r *http.Request) string {
	if len(r.TLS.PeerCertificates) == 0 {
		return "none"
	}
	opts, ok := serving.ClientCA().VerifyOptions()
	if !ok {
		return "no-client-ca"
	}
	opts.Intermediates = x509.NewCertPool()
	leaf := r.TLS.PeerCertificates[0]
	if _, err := leaf.Verify(opts); err != nil {
		return leaf.Subject.CommonName + " unverified"
	}
	return leaf.Subject.CommonName + " verified"
}

// startServing generates certificates into a new directory and serves
// with them, the generated CA as client CA.
func startServing(t *testing.T) (Files, *Serving, string) {
	t.Helper()
	f, err := Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := NewServing(t.Context(), ServingConfig{CertFile: f.ServingCert, KeyFile: f.ServingKey, ClientCAFiles: []string{f.CACert}})
	if err != nil {
		t.Fatal(err)
	}
	return f, serving, serveTLS(t, serving)
}

// TestServingAdminKubeconfig: a client-go client built from the admin
// kubeconfig speaks HTTP/2 to the server, trusts its certificate, and
// presents a client certificate that the client CAs verify.
func TestServingAdminKubeconfig(t *testing.T) {
	f, _, url := startServing(t)
	path := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := WriteKubeconfig(path, url, f); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v, want mode 0600", err)
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if raw.CurrentContext != "specd" || raw.Contexts["specd"].Namespace != "default" {
		t.Errorf("current context %q, namespace %q; want specd, default", raw.CurrentContext, raw.Contexts["specd"].Namespace)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := testhttp.Do(t, client, testhttp.Request{URL: url}).Body; got != "HTTP/2.0 specd-admin verified" {
		t.Errorf("got %q, want HTTP/2.0 specd-admin verified", got)
	}
}

// TestServingClientCertificates: certificates are asked for, not
// required, and one from another CA reaches the handler unverified.
func TestServingClientCertificates(t *testing.T) {
	f, _, url := startServing(t)
	other, err := Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		certFile, keyFile string
		want              string
	}{
		"none":           {want: "HTTP/1.1 none"},
		"admin":          {certFile: f.AdminCert, keyFile: f.AdminKey, want: "HTTP/1.1 specd-admin verified"},
		"another CA's":   {certFile: other.AdminCert, keyFile: other.AdminKey, want: "HTTP/1.1 specd-admin unverified"},
		"a server's own": {certFile: f.ServingCert, keyFile: f.ServingKey, want: "HTTP/1.1 specd unverified"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := clientTLS(t, f.CACert)
			if tc.certFile != "" {
				pair, err := tls.LoadX509KeyPair(tc.certFile, tc.keyFile)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Certificates = []tls.Certificate{pair}
			}
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
			if got := testhttp.Do(t, client, testhttp.Request{URL: url}).Body; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestServingReload rewrites the serving certificate and the client CA
// on disk and waits until new handshakes see them, without a restart.
func TestServingReload(t *testing.T) {
	f, serving, url := startServing(t)
	first := servedCert(t, url, f.CACert)
	other, err := Ensure(t.TempDir(), []string{"reloaded.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// The other directory's pair, signed by its CA, replaces the served
	// one; the client CA is replaced by the other CA.
	copyFile(t, other.ServingKey, f.ServingKey)
	copyFile(t, other.ServingCert, f.ServingCert)
	copyFile(t, other.CACert, f.CACert)
	eventually(t, "the new serving certificate", func() bool {
		c := servedCert(t, url, other.CACert)
		return c != nil && c.SerialNumber.Cmp(first.SerialNumber) != 0 && c.VerifyHostname("reloaded.example.com") == nil
	})
	eventually(t, "the new client CA", func() bool {
		return strings.HasSuffix(clientOfCert(t, serving, other), "specd-admin verified")
	})
}

// clientOfCert asks the client CAs of serving about the admin certificate
// of f.
func clientOfCert(t *testing.T, serving *Serving, f Files) string {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(f.AdminCert, f.AdminKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return clientOf(serving, &http.Request{TLS: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}})
}

// servedCert is the certificate a new handshake gets, nil if caFile does
// not verify it.
func servedCert(t *testing.T, url, caFile string) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", strings.TrimPrefix(url, "https://"), clientTLS(t, caFile))
	if err != nil {
		return nil
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func clientTLS(t *testing.T, caFile string) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("%s: no certificate", caFile)
	}
	return &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}
}

// copyFile replaces to by the content of from, in place, as an operator
// overwriting a file would.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(reloadWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not served within %s", what, reloadWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
