package etcdcare

import (
	"errors"
	"flag"
	"fmt"
	"time"
)

// Flags say how specd looks after etcd.
type Flags struct {
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
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.DurationVar(&f.CompactionInterval, "etcd-compaction-interval", defaultCompactionInterval,
		"how often specd compacts etcd's history, keeping the last interval of it; 0: specd does not compact (the embedded etcd then compacts itself hourly)")
	fs.DurationVar(&f.CheckInterval, "etcd-check-interval", DefaultCheckInterval,
		"how often specd reads etcd's database size and alarms, defragments the embedded etcd when it is mostly free space, and frees it after a NOSPACE alarm")
	fs.Int64Var(&f.QuotaBackendBytes, "etcd-quota-backend-bytes", 0,
		"the embedded etcd's --quota-backend-bytes: past it writes are refused until space is freed (default 0: etcd's 2 GiB)")
}

// Check says what is wrong with the flags, given the --etcd-servers.
func (f Flags) Check(servers []string) error {
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
