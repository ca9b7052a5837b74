package etcdcare

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/internal/cliflag"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Flags say which etcd specd serve stores in, and how it looks after
// it.
type Flags struct {
	// Servers is --etcd-servers; none: the embedded etcd.
	Servers []string
	// TLS are the files to reach the Servers over TLS with.
	TLS etcdstorage.TLSFlags
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

// Register defines the flags on fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.Var((*cliflag.List)(&f.Servers), "etcd-servers", "comma-separated etcd URLs; without it specd starts an embedded etcd")
	f.TLS.Register(fs)
	fs.DurationVar(&f.CompactionInterval, "etcd-compaction-interval", defaultCompactionInterval,
		"how often specd compacts etcd's history, keeping the last interval of it; 0: specd does not compact (the embedded etcd then compacts itself hourly)")
	fs.DurationVar(&f.CheckInterval, "etcd-check-interval", DefaultCheckInterval,
		"how often specd reads etcd's database size and alarms, defragments the embedded etcd when it is mostly free space, and frees it after a NOSPACE alarm")
	fs.Int64Var(&f.QuotaBackendBytes, "etcd-quota-backend-bytes", 0,
		"the embedded etcd's --quota-backend-bytes: past it writes are refused until space is freed (default 0: etcd's 2 GiB)")
}

// Check says what is wrong with the flags.
func (f Flags) Check() error {
	if err := f.TLS.Check(f.Servers); err != nil {
		return err
	}
	switch {
	case f.CompactionInterval < 0:
		return fmt.Errorf("--etcd-compaction-interval %v: must not be negative", f.CompactionInterval)
	case f.CheckInterval <= 0:
		return fmt.Errorf("--etcd-check-interval %v: must be positive", f.CheckInterval)
	case f.QuotaBackendBytes < 0:
		return fmt.Errorf("--etcd-quota-backend-bytes %d: must not be negative", f.QuotaBackendBytes)
	case f.QuotaBackendBytes > 0 && len(f.Servers) > 0:
		return errors.New("--etcd-quota-backend-bytes is the embedded etcd's: an external etcd has its own --quota-backend-bytes")
	}
	return nil
}

// Open is what Open opens: the cluster of --etcd-servers, or the
// embedded etcd in dataDir, taking values of up to maxValueBytes. The
// embedded etcd compacts its own history only when specd does not.
func (f Flags) Open(dataDir string, maxValueBytes int64, log *slog.Logger) OpenConfig {
	history := time.Duration(0)
	if f.CompactionInterval > 0 {
		history = -1
	}
	embedded := etcdstorage.EmbeddedConfig{DataDir: dataDir, Logger: log, MaxValueBytes: maxValueBytes,
		History: history, QuotaBackendBytes: f.QuotaBackendBytes}
	return OpenConfig{Servers: f.Servers, Client: f.TLS.ClientConfig(f.Servers, log), Embedded: embedded, Logger: log}
}

// Care is the configuration of the upkeep of the etcd client talks to.
func (f Flags) Care(client *clientv3.Client, log *slog.Logger) Config {
	return Config{Client: client, Embedded: len(f.Servers) == 0,
		CompactionInterval: f.CompactionInterval, CheckInterval: f.CheckInterval, Logger: log}
}
