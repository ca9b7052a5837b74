package etcdstorage

import (
	"errors"
	"log/slog"

	"github.com/spf13/pflag"
)

// TLSFlags are the files --etcd-cafile, --etcd-certfile and
// --etcd-keyfile name, as kube-apiserver's flags of the same names; specd
// serve, check and snapshot share them.
type TLSFlags struct {
	CAFile, CertFile, KeyFile string
}

// Register defines the flags on fs.
func (e *TLSFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&e.CAFile, "etcd-cafile", "", "PEM file of the CAs that sign the etcd servers' certificates (the system's by default); needs https:// --etcd-servers")
	fs.StringVar(&e.CertFile, "etcd-certfile", "", "PEM file of the client certificate specd presents to etcd, with --etcd-keyfile")
	fs.StringVar(&e.KeyFile, "etcd-keyfile", "", "PEM file of the key of --etcd-certfile")
}

// Check says what is wrong with the flags, given the --etcd-servers.
func (e TLSFlags) Check(servers []string) error {
	switch {
	case e == TLSFlags{}:
		return nil
	case len(servers) == 0:
		return errors.New("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers: the embedded etcd has no TLS, only a socket in --data-dir")
	case (e.CertFile == "") != (e.KeyFile == ""):
		return errors.New("--etcd-certfile and --etcd-keyfile go together")
	}
	return nil
}

// ClientConfig is how to reach the etcd at endpoints.
func (e TLSFlags) ClientConfig(endpoints []string, log *slog.Logger) ClientConfig {
	return ClientConfig{Endpoints: endpoints, CAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile, Logger: log}
}
