package certs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/specd-io/specd/internal/cliflag"
	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// AdminKubeconfig is the kubeconfig specd writes into --data-dir when it
// generates its certificates.
const AdminKubeconfig = "admin.kubeconfig"

// Flags are how the API is served: the files --tls-cert-file,
// --tls-private-key-file and --client-ca-file name (kube-apiserver's
// flags of the same names), or plain HTTP with --insecure-serving.
type Flags struct {
	CertFile, KeyFile, ClientCAFile string
	Insecure                        bool
	// SANs (--tls-sans) are more names and addresses the generated
	// serving certificate holds: a Service's SERVICE.NAMESPACE.svc.
	SANs []string
}

// Register defines the flags on serving, and --client-ca-file on authn,
// where kube-apiserver's help has it.
func (s *Flags) Register(serving, authn *pflag.FlagSet) {
	fs := serving
	fs.StringVar(&s.CertFile, "tls-cert-file", "", "PEM file of the serving certificate (with its chain); without it specd generates a CA, a serving certificate and an admin kubeconfig into --data-dir")
	fs.StringVar(&s.KeyFile, "tls-private-key-file", "", "PEM file of the key of --tls-cert-file")
	authn.StringVar(&s.ClientCAFile, "client-ca-file", "", "PEM file of the CAs whose client certificates authenticate users (CN the user, O the groups), beside specd's own generated CA")
	fs.Var((*cliflag.List)(&s.SANs), "tls-sans", "more DNS names and IP addresses for the serving certificate specd generates (such as SERVICE.NAMESPACE.svc, which a host cluster's aggregator checks); repeatable or comma-separated")
	fs.BoolVar(&s.Insecure, "insecure-serving", false, "serve plain HTTP, without TLS; only on a loopback --listen address, for development")
}

// Check says what is wrong with the flags, given --listen.
func (s Flags) Check(listen string) error {
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

// Place is where Open serves: the data directory, the --listen address,
// the address the listener is bound to, and the CAs a client's
// certificate is asked for at the handshake beyond the client CAs (a
// host cluster's front proxy's).
type Place struct {
	DataDir, Listen string
	Addr            net.Addr
	HandshakeCAs    dynamiccertificates.CAContentProvider
}

// Open is the TLS the API serves with until ctx ends, nil with
// --insecure-serving. Without --tls-cert-file the certificates are
// generated into the data directory (kept across starts) and the admin
// kubeconfig there is written for the address the listener is bound to.
func (s Flags) Open(ctx context.Context, at Place, log *slog.Logger) (*Serving, error) {
	if s.Insecure {
		log.Warn("serving plain HTTP (--insecure-serving): no TLS, so anyone on this machine can read and forge requests", "address", at.Addr.String())
		return nil, nil
	}
	cfg := ServingConfig{CertFile: s.CertFile, KeyFile: s.KeyFile, HandshakeCAs: at.HandshakeCAs}
	if s.CertFile == "" {
		files, err := s.generate(at, log)
		if err != nil {
			return nil, err
		}
		cfg.CertFile, cfg.KeyFile, cfg.ClientCAFiles = files.ServingCert, files.ServingKey, []string{files.CACert}
		cfg.Generated, cfg.RootCAFile = true, files.CACert
	}
	if s.ClientCAFile != "" {
		cfg.ClientCAFiles = append(cfg.ClientCAFiles, s.ClientCAFile)
	}
	return NewServing(ctx, cfg)
}

// generate makes the certificates and writes the admin kubeconfig.
func (s Flags) generate(at Place, log *slog.Logger) (Files, error) {
	hosts, err := Hosts(at.Listen)
	if err != nil {
		return Files{}, err
	}
	files, err := Ensure(at.DataDir, append(hosts, s.SANs...))
	if err != nil {
		return Files{}, err
	}
	kubeconfig := filepath.Join(at.DataDir, AdminKubeconfig)
	if err := WriteKubeconfig(kubeconfig, LocalURL("https", at.Addr), files); err != nil {
		return Files{}, err
	}
	log.Info("admin kubeconfig written", "path", kubeconfig)
	return files, nil
}
