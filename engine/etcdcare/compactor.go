package etcdcare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// CompactKey is the etcd key through which replicas agree on who compacts.
// Its version counts the compaction intervals that have passed; a replica
// that bumps it from the version it last saw wins the interval, and one
// that finds it moved lost it to another replica.
const CompactKey = "/specd-compaction/revision"

// compactTimeout bounds one compaction, which waits until etcd has
// removed the old revisions from its database (so that a defragmentation
// after it finds the space free).
const compactTimeout = time.Minute

// Compactor compacts etcd's history once per interval (Tick), keeping
// the revisions of the last interval, as kube-apiserver does. Several
// replicas may run one each on the same etcd: one of them compacts per
// interval.
type Compactor struct {
	kv  clientv3.KV
	log *slog.Logger
	// seenVersion is CompactKey's version when this replica last read or
	// wrote it; seenRevision is the store's revision then.
	seenVersion, seenRevision int64
}

// NewCompactor returns a Compactor that works through kv.
func NewCompactor(kv clientv3.KV, log *slog.Logger) *Compactor {
	if log == nil {
		log = slog.Default()
	}
	return &Compactor{kv: kv, log: log}
}

// Tick ends one interval: if no other replica ended it first, it compacts
// up to the revision the previous interval ended at. It returns the
// revision it compacted to, or 0 when it did not compact.
func (c *Compactor) Tick(ctx context.Context) (int64, error) {
	target, err := c.claim(ctx)
	if err != nil || target == 0 {
		return 0, err
	}
	if err := Compact(ctx, c.kv, target); err != nil {
		return 0, err
	}
	c.log.Info("etcd compacted", "revision", target)
	return target, nil
}

// claim moves CompactKey on if it is still at the version this replica
// last saw. It returns the revision to compact to: the store's revision
// at this replica's previous claim, or 0 when another replica moved the
// key first or this replica has not claimed before.
func (c *Compactor) claim(ctx context.Context) (int64, error) {
	resp, err := c.kv.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(CompactKey), "=", c.seenVersion)).
		Then(clientv3.OpPut(CompactKey, strconv.FormatInt(c.seenRevision, 10))).
		Else(clientv3.OpGet(CompactKey)).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("claim the compaction interval: %w", err)
	}
	previous := c.seenRevision
	c.seenRevision = resp.Header.Revision
	if !resp.Succeeded {
		c.seenVersion = 0
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			c.seenVersion = kvs[0].Version
		}
		return 0, nil
	}
	c.seenVersion++
	return previous, nil
}

// Compact removes etcd's history before revision, and waits until the
// space it held is free in etcd's database. A revision compacted already
// (by another replica, or by etcd itself) is no error.
func Compact(ctx context.Context, kv clientv3.KV, revision int64) error {
	ctx, cancel := context.WithTimeout(ctx, compactTimeout)
	defer cancel()
	_, err := kv.Compact(ctx, revision, clientv3.WithCompactPhysical())
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		compactions.WithLabelValues(resultSkipped).Inc()
		return nil
	case err != nil:
		compactions.WithLabelValues(resultFailed).Inc()
		return fmt.Errorf("compact etcd to revision %d: %w", revision, err)
	}
	compactions.WithLabelValues(resultDone).Inc()
	compactedRevision.Set(float64(revision))
	return nil
}
