package etcdstorage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/storage"
)

// Storage is a storage.Storage on an etcd v3 client.
type Storage struct {
	kv       clientv3.KV
	watcher  clientv3.Watcher
	lease    clientv3.Lease
	progress *progressCheck // watch.go
	// retryWindow and tryTimeout are retry.go's; tests shorten them.
	retryWindow time.Duration
	tryTimeout  time.Duration
}

var _ storage.Storage = (*Storage)(nil)

// New returns a Storage that reads and writes through cli. The caller owns
// cli and closes it after the Storage is no longer used.
func New(cli *clientv3.Client) *Storage {
	return &Storage{kv: cli.KV, watcher: cli.Watcher, lease: cli.Lease, progress: &progressCheck{cli: cli}, retryWindow: retryWindow, tryTimeout: tryTimeout}
}

// Create stores value under key if key is absent.
func (s *Storage) Create(ctx context.Context, key string, value []byte) (int64, error) {
	return s.create(ctx, key, value)
}

// create is Create with options for the put (a lease).
func (s *Storage) create(ctx context.Context, key string, value []byte, put ...clientv3.OpOption) (int64, error) {
	resp, uncertain, err := s.commit(ctx, func(txn clientv3.Txn) clientv3.Txn {
		return txn.If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, string(value), put...))
	})
	if err != nil {
		return 0, writeError(err, uncertain, "create", key, value)
	}
	if !resp.Succeeded {
		if uncertain {
			return s.resolve(ctx, "create", key, value)
		}
		return 0, fmt.Errorf("etcdstorage: create %q: %w", key, storage.ErrKeyExists)
	}
	return resp.Header.Revision, nil
}

// Get returns the value under key.
func (s *Storage) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	resp, err := s.get(ctx, key)
	if err != nil {
		return storage.KeyValue{}, wrap(err, "get", key)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, fmt.Errorf("etcdstorage: get %q: %w", key, storage.ErrKeyNotFound)
	}
	kv := resp.Kvs[0]
	return storage.KeyValue{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision}, nil
}

// Update replaces the value under key if its revision is expectedRevision.
func (s *Storage) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	return s.update(ctx, key, value, expectedRevision)
}

// update is Update with options for the put (a lease).
func (s *Storage) update(ctx context.Context, key string, value []byte, expectedRevision int64, put ...clientv3.OpOption) (int64, error) {
	resp, uncertain, err := s.commit(ctx, func(txn clientv3.Txn) clientv3.Txn {
		return txn.If(clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)).
			Then(clientv3.OpPut(key, string(value), put...)).
			Else(clientv3.OpGet(key, clientv3.WithKeysOnly()))
	})
	if err != nil {
		return 0, writeError(err, uncertain, "update", key, value)
	}
	if !resp.Succeeded {
		if uncertain {
			return s.resolve(ctx, "update", key, value)
		}
		if len(resp.Responses) == 0 || len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return 0, fmt.Errorf("etcdstorage: update %q: %w", key, storage.ErrKeyNotFound)
		}
		return 0, fmt.Errorf("etcdstorage: update %q at revision %d: %w", key, expectedRevision, storage.ErrConflict)
	}
	return resp.Header.Revision, nil
}

// Delete removes key and returns what it held. With expectedRevision > 0 it
// deletes only that revision.
func (s *Storage) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, error) {
	var cmp clientv3.Cmp
	if expectedRevision > 0 {
		cmp = clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)
	} else {
		cmp = clientv3.Compare(clientv3.CreateRevision(key), ">", 0)
	}
	resp, uncertain, err := s.commit(ctx, func(txn clientv3.Txn) clientv3.Txn {
		return txn.If(cmp).
			Then(clientv3.OpDelete(key, clientv3.WithPrevKV())).
			Else(clientv3.OpGet(key, clientv3.WithKeysOnly()))
	})
	if err != nil {
		return storage.KeyValue{}, writeError(err, uncertain, "delete", key, nil)
	}
	if !resp.Succeeded && uncertain {
		return s.resolveDelete(ctx, key, expectedRevision, resp)
	}
	if !resp.Succeeded {
		if len(resp.Responses) == 0 || len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
			return storage.KeyValue{}, fmt.Errorf("etcdstorage: delete %q: %w", key, storage.ErrKeyNotFound)
		}
		return storage.KeyValue{}, fmt.Errorf("etcdstorage: delete %q at revision %d: %w", key, expectedRevision, storage.ErrConflict)
	}
	del := resp.Responses[0].GetResponseDeleteRange()
	if del == nil || len(del.PrevKvs) == 0 {
		// Deleted between the compare and the delete cannot happen in one
		// transaction; treat an empty answer as absent.
		return storage.KeyValue{}, fmt.Errorf("etcdstorage: delete %q: %w", key, storage.ErrKeyNotFound)
	}
	prev := del.PrevKvs[0]
	return storage.KeyValue{Key: string(prev.Key), Value: prev.Value, ModRevision: prev.ModRevision}, nil
}

// List returns the values under prefix in key order, from opts.StartKey
// when set, at most opts.Limit of them, at opts.Revision when set.
func (s *Storage) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	start := prefix
	if opts.StartKey != "" {
		if len(opts.StartKey) < len(prefix) || opts.StartKey[:len(prefix)] != prefix {
			return storage.ListResult{}, fmt.Errorf("etcdstorage: list %q: start key %q is outside the prefix", prefix, opts.StartKey)
		}
		start = opts.StartKey
	}
	ops := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(prefix))}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	if opts.Revision > 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	resp, err := s.get(ctx, start, ops...)
	if errors.Is(err, rpctypes.ErrFutureRev) {
		return storage.ListResult{}, s.futureRevision(ctx, prefix, opts.Revision, err)
	}
	if err != nil {
		return storage.ListResult{}, wrap(err, "list", prefix)
	}
	items := make([]storage.KeyValue, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		items[i] = storage.KeyValue{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision}
	}
	res := storage.ListResult{Items: items, Revision: resp.Header.Revision, More: resp.More}
	if opts.Revision > 0 {
		res.Revision = opts.Revision
	}
	if resp.More {
		res.Remaining = resp.Count - int64(len(items))
	}
	return res, nil
}

// futureRevision is the error of a list at revision rev, which etcd has
// not reached (err): a storage.RevisionError with the current revision.
func (s *Storage) futureRevision(ctx context.Context, prefix string, rev int64, err error) error {
	cur, curErr := s.kv.Get(ctx, prefix, clientv3.WithCountOnly())
	if curErr != nil {
		return wrap(err, "list", prefix)
	}
	return fmt.Errorf("etcdstorage: list %q: %w: %w", prefix, &storage.RevisionError{Requested: rev, Current: cur.Header.Revision}, err)
}
