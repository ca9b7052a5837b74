package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// storeKeyPrefix is the key prefix specd serve stores objects under
// (engine.Options.Prefix when empty): <prefix><group>/<plural>/...
const storeKeyPrefix = "/specd/"

// storedReadTimeout bounds the reads of the gate of a reload that
// removes a version: it holds the reload lock meanwhile.
const storedReadTimeout = 30 * time.Second

// storedObjects tells check in which versions the objects of a resource
// are stored, read from storage by migrate.StoredVersions: one
// answer for the compatibility gate of a reload (schemas/serving) and
// `specd check --etcd-servers` (etcdObjects). Every read is bounded by
// timeout.
type storedObjects struct {
	store   *engine.Store
	timeout time.Duration
}

var _ check.StoredObjects = storedObjects{}

func (s storedObjects) StoredVersions(ctx context.Context, res *schemas.Resource) (map[string]check.Stored, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	versions, err := migrate.StoredVersions(ctx, s.store, res)
	if err != nil {
		return nil, err
	}
	out := make(map[string]check.Stored, len(versions))
	for v, st := range versions {
		out[v] = check.Stored{Count: st.Count, Example: st.Example}
	}
	return out, nil
}

// etcdObjects is storedObjects on an etcd cluster, for `specd check
// --etcd-servers`. It connects on the first read, so a check that removes
// no version never dials etcd; the connection and every read are bounded
// by timeout. Nothing is written.
type etcdObjects struct {
	client  etcdstorage.ClientConfig
	prefix  string
	timeout time.Duration
	log     *slog.Logger
	// wrap, when set, wraps the storage (encryption at rest).
	wrap func(storage.Storage) storage.Storage

	once    sync.Once
	stored  storedObjects
	close   func()
	dialErr error
}

var _ check.StoredObjects = (*etcdObjects)(nil)

func (e *etcdObjects) connect(ctx context.Context) error {
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, e.timeout)
		defer cancel()
		cli, err := etcdstorage.Connect(ctx, e.client)
		if err != nil {
			e.dialErr = err
			return
		}
		var st storage.Storage = etcdstorage.New(cli)
		if e.wrap != nil {
			st = e.wrap(st)
		}
		store := engine.NewStore(st, engine.Options{Prefix: e.prefix, Logger: e.log})
		e.stored, e.close = storedObjects{store: store, timeout: e.timeout}, func() { _ = cli.Close() }
	})
	return e.dialErr
}

// Close closes the connection, if one was made.
func (e *etcdObjects) Close() {
	if e.close != nil {
		e.close()
	}
}

// StoredVersions implements check.StoredObjects.
func (e *etcdObjects) StoredVersions(ctx context.Context, res *schemas.Resource) (map[string]check.Stored, error) {
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	return e.stored.StoredVersions(ctx, res)
}
