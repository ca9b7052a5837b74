package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
)

// etcdCareFlags say how specd looks after etcd (engine/etcdcare).
type etcdCareFlags struct {
	// CompactionInterval is --etcd-compaction-interval, as
	// kube-apiserver's; 0: specd does not compact.
	CompactionInterval time.Duration
	// CheckInterval is --etcd-check-interval: how often the database's
	// size and alarms are read.
	CheckInterval time.Duration
	// QuotaBackendBytes is --etcd-quota-backend-bytes of the embedded
	// etcd; 0 for etcd's default.
	QuotaBackendBytes int64
}

// defaultCompactionInterval is kube-apiserver's.
const defaultCompactionInterval = 5 * time.Minute

func (f *etcdCareFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.CompactionInterval, "etcd-compaction-interval", defaultCompactionInterval,
		"how often specd compacts etcd's history, keeping the last interval of it; 0: specd does not compact (the embedded etcd then compacts itself hourly)")
	fs.DurationVar(&f.CheckInterval, "etcd-check-interval", etcdcare.DefaultCheckInterval,
		"how often specd reads etcd's database size and alarms, defragments the embedded etcd when it is mostly free space, and frees it after a NOSPACE alarm")
	fs.Int64Var(&f.QuotaBackendBytes, "etcd-quota-backend-bytes", 0,
		"the embedded etcd's --quota-backend-bytes: past it writes are refused until space is freed (default 0: etcd's 2 GiB)")
}

func (f etcdCareFlags) check(servers []string) error {
	switch {
	case f.CompactionInterval < 0:
		return fmt.Errorf("--etcd-compaction-interval %v: must not be negative", f.CompactionInterval)
	case f.CheckInterval <= 0:
		return fmt.Errorf("--etcd-check-interval %v: must be positive", f.CheckInterval)
	case f.QuotaBackendBytes < 0:
		return fmt.Errorf("--etcd-quota-backend-bytes %d: must not be negative", f.QuotaBackendBytes)
	case f.QuotaBackendBytes > 0 && len(servers) > 0:
		return errors.New("--etcd-quota-backend-bytes is the embedded etcd's: an external etcd has its own --quota-backend-bytes")
	}
	return nil
}

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

// etcdCare is the configuration of the upkeep of the etcd client talks
// to.
// etcd is what etcdcare.Open opens: the cluster of --etcd-servers, or the
// embedded etcd.
func (c serveConfig) etcd(log *slog.Logger) etcdcare.OpenConfig {
	return etcdcare.OpenConfig{Servers: c.EtcdServers, Client: c.EtcdTLS.clientConfig(c.EtcdServers, log), Embedded: c.embeddedEtcd(log), Logger: log}
}

func (c serveConfig) etcdCare(client *clientv3.Client, log *slog.Logger) etcdcare.Config {
	return etcdcare.Config{Client: client, Embedded: len(c.EtcdServers) == 0,
		CompactionInterval: c.EtcdCare.CompactionInterval, CheckInterval: c.EtcdCare.CheckInterval, Logger: log}
}
