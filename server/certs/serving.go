package certs

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// ServingConfig names the files the server serves with.
type ServingConfig struct {
	// CertFile and KeyFile are the serving certificate (with its chain)
	// and its key.
	CertFile, KeyFile string
	// ClientCAFiles are PEM bundles of the CAs whose client certificates
	// the server asks for; none means it asks for none.
	ClientCAFiles []string
	// HandshakeCAs are more CAs the server asks for client certificates
	// of, which other authenticators than ClientCA's verify (a host
	// cluster's front proxy and users); NewServing runs their
	// controllers. Nil for none.
	HandshakeCAs dynamiccertificates.CAContentProvider
	// Generated says specd generated the files, and the admin
	// certificate beside them, into its data directory.
	Generated bool
	// RootCAFile is the CA that signed CertFile, when specd knows it
	// (it generated both); "" otherwise.
	RootCAFile string
}

// Serving is the server's TLS configuration, kept up to date with the
// files of its ServingConfig until the context given to NewServing ends.
type Serving struct {
	tlsConfig *tls.Config
	clientCA  dynamiccertificates.CAContentProvider
	generated bool
	rootCA    []byte
}

// NewServing loads the files of cfg, failing if they are not a valid
// certificate, key and CA bundles, and reloads them whenever they change
// until ctx ends. A change that does not load (a certificate whose key is
// not written yet) keeps what is served until the files are whole again.
func NewServing(ctx context.Context, cfg ServingConfig) (*Serving, error) {
	cert, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("certs: serving certificate: %w", err)
	}
	s := &Serving{generated: cfg.Generated}
	if cfg.RootCAFile != "" {
		if s.rootCA, err = os.ReadFile(cfg.RootCAFile); err != nil {
			return nil, fmt.Errorf("certs: the root CA: %w", err)
		}
	}
	if s.clientCA, err = clientCAs(cfg.ClientCAFiles); err != nil {
		return nil, err
	}
	asked := handshakeCAs(s.clientCA, cfg.HandshakeCAs)
	base := &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
	}
	if asked != nil {
		// Asked for, not required, not verified here: a request with a
		// token and no certificate goes on to the authenticators, and
		// the x509 authenticator verifies what was sent (ClientCA).
		base.ClientAuth = tls.RequestClientCert
	}
	controller := dynamiccertificates.NewDynamicServingCertificateController(base, asked, cert, nil, nil)
	cert.AddListener(controller)
	if err := run(ctx, cert); err != nil {
		return nil, err
	}
	if asked != nil {
		asked.AddListener(controller)
		runner := asked.(dynamiccertificates.ControllerRunner)
		// The files were read when loaded: only the host's CAs can fail
		// here, and, as in kube, a handshake asks for none of them
		// until they load.
		if err := runner.RunOnce(ctx); err != nil && cfg.HandshakeCAs == nil {
			return nil, fmt.Errorf("certs: %w", err)
		}
		go runner.Run(ctx, 1)
	}
	if err := controller.RunOnce(); err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	go controller.Run(1, ctx.Done())
	s.tlsConfig = base.Clone()
	s.tlsConfig.GetConfigForClient = controller.GetConfigForClient
	return s, nil
}

// clientCAs is one provider of the bundles in files, nil for none.
func clientCAs(files []string) (dynamiccertificates.CAContentProvider, error) {
	var providers []dynamiccertificates.CAContentProvider
	for _, f := range files {
		p, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca", f)
		if err != nil {
			return nil, fmt.Errorf("certs: client CA: %w", err)
		}
		providers = append(providers, p)
	}
	switch len(providers) {
	case 0:
		return nil, nil
	case 1:
		// Alone, not in a union: a union parses its bundles again at
		// every VerifyOptions, which x509 authentication asks for.
		return providers[0], nil
	}
	return dynamiccertificates.NewUnionCAContentProvider(providers...), nil
}

// handshakeCAs are the CAs a handshake asks for: the client CAs and
// more, nil for none.
func handshakeCAs(clientCA, more dynamiccertificates.CAContentProvider) dynamiccertificates.CAContentProvider {
	switch {
	case more == nil:
		return clientCA
	case clientCA == nil:
		return more
	}
	return dynamiccertificates.NewUnionCAContentProvider(clientCA, more)
}

// run loads r's files once and then follows them until ctx ends.
func run(ctx context.Context, r dynamiccertificates.ControllerRunner) error {
	if err := r.RunOnce(ctx); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	go r.Run(ctx, 1)
	return nil
}

// TLSConfig is the configuration to serve with (http.Server.TLSConfig):
// each new handshake gets the certificate and client CAs on disk at that
// moment. It speaks HTTP/2 and HTTP/1.1. A nil *Serving, plain HTTP
// (--insecure-serving), has none.
func (s *Serving) TLSConfig() *tls.Config {
	if s == nil {
		return nil
	}
	return s.tlsConfig
}

// ClientCA is the reloading bundle of client CAs, for the x509
// authenticator (its VerifyOptions); nil when no client CA was given.
func (s *Serving) ClientCA() dynamiccertificates.CAContentProvider { return s.clientCA }

// RootCA is the PEM of the CA that signed the serving certificate, which
// clients verify specd with (published as kube-root-ca.crt); nil when
// specd does not know it (--tls-cert-file) or serves plain HTTP.
func (s *Serving) RootCA() []byte {
	if s == nil {
		return nil
	}
	return s.rootCA
}

// Generated reports whether specd generated its certificates, with the
// admin's (AdminUser in AdminGroup), into its data directory.
func (s *Serving) Generated() bool { return s.generated }
