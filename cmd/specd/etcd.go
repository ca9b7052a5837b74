package main

import (
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
)

// embeddedEtcd is the configuration of the embedded etcd. It compacts
// its own history only when specd does not.
func (c serveConfig) embeddedEtcd(log *slog.Logger) etcdstorage.EmbeddedConfig {
	history := time.Duration(0)
	if c.EtcdCare.CompactionInterval > 0 {
		history = -1
	}
	return etcdstorage.EmbeddedConfig{DataDir: c.DataDir, Logger: log, MaxValueBytes: c.objectLimit(),
		History: history, QuotaBackendBytes: c.EtcdCare.QuotaBackendBytes}
}

// etcd is what etcdcare.Open opens: the cluster of --etcd-servers, or the
// embedded etcd.
func (c serveConfig) etcd(log *slog.Logger) etcdcare.OpenConfig {
	return etcdcare.OpenConfig{Servers: c.EtcdServers, Client: c.EtcdTLS.ClientConfig(c.EtcdServers, log), Embedded: c.embeddedEtcd(log), Logger: log}
}

// etcdCare is the configuration of the upkeep of the etcd client talks
// to.
func (c serveConfig) etcdCare(client *clientv3.Client, log *slog.Logger) etcdcare.Config {
	return etcdcare.Config{Client: client, Embedded: len(c.EtcdServers) == 0,
		CompactionInterval: c.EtcdCare.CompactionInterval, CheckInterval: c.EtcdCare.CheckInterval, Logger: log}
}
