package main

import (
	"errors"
	"flag"
	"log/slog"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// etcdTLS is the files --etcd-cafile, --etcd-certfile and --etcd-keyfile
// name, as kube-apiserver's flags of the same names.
type etcdTLS struct {
	CAFile, CertFile, KeyFile string
}

func (e *etcdTLS) register(fs *flag.FlagSet) {
	fs.StringVar(&e.CAFile, "etcd-cafile", "", "PEM file of the CAs that sign the etcd servers' certificates (the system's by default); needs https:// --etcd-servers")
	fs.StringVar(&e.CertFile, "etcd-certfile", "", "PEM file of the client certificate specd presents to etcd, with --etcd-keyfile")
	fs.StringVar(&e.KeyFile, "etcd-keyfile", "", "PEM file of the key of --etcd-certfile")
}

// check says what is wrong with the flags, given the --etcd-servers.
func (e etcdTLS) check(servers []string) error {
	switch {
	case e == etcdTLS{}:
		return nil
	case len(servers) == 0:
		return errors.New("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers: the embedded etcd has no TLS, only a socket in --data-dir")
	case (e.CertFile == "") != (e.KeyFile == ""):
		return errors.New("--etcd-certfile and --etcd-keyfile go together")
	}
	return nil
}

// clientConfig is how to reach the etcd at endpoints.
func (e etcdTLS) clientConfig(endpoints []string, log *slog.Logger) etcdstorage.ClientConfig {
	return etcdstorage.ClientConfig{Endpoints: endpoints, CAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile, Logger: log}
}
