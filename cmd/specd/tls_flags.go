package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/specd-io/specd/server/certs"
)

// adminKubeconfig is the kubeconfig specd writes into --data-dir when it
// generates its certificates.
const adminKubeconfig = "admin.kubeconfig"

// servingTLS is how the API is served: the files --tls-cert-file,
// --tls-private-key-file and --client-ca-file name (kube-apiserver's flags
// of the same names), or plain HTTP with --insecure-serving.
type servingTLS struct {
	CertFile, KeyFile, ClientCAFile string
	Insecure                        bool
	// SANs (--tls-sans) are more names and addresses the generated
	// serving certificate holds: a Service's SERVICE.NAMESPACE.svc.
	SANs []string
}

func (s *servingTLS) register(fs *flag.FlagSet) {
	fs.StringVar(&s.CertFile, "tls-cert-file", "", "PEM file of the serving certificate (with its chain); without it specd generates a CA, a serving certificate and an admin kubeconfig into --data-dir")
	fs.StringVar(&s.KeyFile, "tls-private-key-file", "", "PEM file of the key of --tls-cert-file")
	fs.StringVar(&s.ClientCAFile, "client-ca-file", "", "PEM file of the CAs whose client certificates authenticate users (CN the user, O the groups), beside specd's own generated CA")
	fs.Var((*listFlag)(&s.SANs), "tls-sans", "more DNS names and IP addresses for the serving certificate specd generates (such as SERVICE.NAMESPACE.svc, which a host cluster's aggregator checks); repeatable or comma-separated")
	fs.BoolVar(&s.Insecure, "insecure-serving", false, "serve plain HTTP, without TLS; only on a loopback --listen address, for development")
}

// check says what is wrong with the flags, given --listen.
func (s servingTLS) check(listen string) error {
	switch {
	case s.Insecure && (s.CertFile != "" || s.KeyFile != "" || s.ClientCAFile != ""):
		return errors.New("--insecure-serving serves plain HTTP: it does not go with --tls-cert-file, --tls-private-key-file or --client-ca-file")
	case s.Insecure && !isLoopback(listen):
		return fmt.Errorf("--insecure-serving serves plain HTTP, so only on a loopback --listen address (127.0.0.1, ::1 or localhost), not %q: drop --insecure-serving to serve HTTPS", listen)
	case len(s.SANs) > 0 && (s.CertFile != "" || s.Insecure):
		return errors.New("--tls-sans adds names to the certificate specd generates: it does not go with --tls-cert-file or --insecure-serving")
	case (s.CertFile == "") != (s.KeyFile == ""):
		return errors.New("--tls-cert-file and --tls-private-key-file go together")
	}
	return nil
}

func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// open is the TLS the API serves with until ctx ends, nil with
// --insecure-serving. Without --tls-cert-file the certificates are
// generated into dataDir (kept across starts) and the admin kubeconfig
// there is written for the address the listener is bound to.
func (s servingTLS) open(ctx context.Context, dataDir, listen string, addr net.Addr, handshakeCAs dynamiccertificates.CAContentProvider, log *slog.Logger) (*certs.Serving, error) {
	if s.Insecure {
		log.Warn("serving plain HTTP (--insecure-serving): no TLS, so anyone on this machine can read and forge requests", "address", addr.String())
		return nil, nil
	}
	cfg := certs.ServingConfig{CertFile: s.CertFile, KeyFile: s.KeyFile, HandshakeCAs: handshakeCAs}
	if s.CertFile == "" {
		hosts, err := certs.Hosts(listen)
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, s.SANs...)
		files, err := certs.Ensure(dataDir, hosts)
		if err != nil {
			return nil, err
		}
		cfg.CertFile, cfg.KeyFile, cfg.ClientCAFiles = files.ServingCert, files.ServingKey, []string{files.CACert}
		kubeconfig := filepath.Join(dataDir, adminKubeconfig)
		if err := certs.WriteKubeconfig(kubeconfig, certs.LocalURL("https", addr), files); err != nil {
			return nil, err
		}
		log.Info("admin kubeconfig written", "path", kubeconfig)
	}
	if s.ClientCAFile != "" {
		cfg.ClientCAFiles = append(cfg.ClientCAFiles, s.ClientCAFile)
	}
	return certs.NewServing(ctx, cfg)
}
