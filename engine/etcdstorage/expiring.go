package etcdstorage

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/storage"
)

var _ storage.Expirer = (*Storage)(nil)

// Expiring returns a Storage on s whose creates and updates attach an etcd
// lease of at least ttl (see leases): etcd deletes the key when the lease
// expires, and a watch sees the delete. Each call has its own leases.
func (s *Storage) Expiring(ttl time.Duration) storage.Storage {
	return &expiring{Storage: s, leases: newLeases(s.lease, ttl)}
}

// expiring is a Storage whose writes expire.
type expiring struct {
	*Storage
	leases *leases
}

func (e *expiring) Create(ctx context.Context, key string, value []byte) (int64, error) {
	return e.withLease(ctx, func(put clientv3.OpOption) (int64, error) {
		return e.create(ctx, key, value, put)
	})
}

func (e *expiring) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	return e.withLease(ctx, func(put clientv3.OpOption) (int64, error) {
		return e.update(ctx, key, value, expectedRevision, put)
	})
}

// withLease runs write with a lease, and once more with a new one when
// etcd no longer has the lease (revoked by hand, or lost by an etcd
// restored from a snapshot).
func (e *expiring) withLease(ctx context.Context, write func(clientv3.OpOption) (int64, error)) (int64, error) {
	for attempt := 0; ; attempt++ {
		id, err := e.leases.get(ctx)
		if err != nil {
			return 0, err
		}
		rev, err := write(clientv3.WithLease(id))
		if attempt > 0 || !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return rev, err
		}
		e.leases.forget(id)
	}
}
