package migrate

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// StoredObjects tells in which versions the objects of each resource are
// stored, read from the storage beneath a Store by their keys: it needs
// no Store, so the compatibility gate of a reload can have it before the
// Store is made. `specd check --etcd-servers` asks it too (LazyStored).
type StoredObjects struct {
	Storage storage.Storage
	Keys    engine.Keys
	// Timeout bounds the reading of one resource; 0 is none.
	Timeout time.Duration
}

var _ check.StoredObjects = StoredObjects{}

// StoredVersions reads every object of r and counts them by the version
// they are stored in: the version of each object's own apiVersion, which
// is not always r's storage version (an object keeps the storage version
// of its last write until the migration rewrites it). The keys are read
// page by page from one snapshot; nothing is written. Whether a version
// may be removed is decided on this.
func (s StoredObjects) StoredVersions(ctx context.Context, r *schemas.Resource) (map[string]check.Stored, error) {
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	prefix := s.Keys.Resource(r)
	out := map[string]check.Stored{}
	err := eachPage(ctx, s.Storage, prefix, storage.ListOptions{Limit: DefaultPageSize}, true,
		"read the objects of "+r.GroupResource(), func(page storage.ListResult) error {
			for _, kv := range page.Items {
				v := versionOf(kv.Value)
				st := out[v]
				if st.Count == 0 {
					st.Example = strings.TrimPrefix(kv.Key, prefix)
				}
				st.Count++
				out[v] = st
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// LazyStored is StoredObjects on a storage opened on the first question:
// `specd check --etcd-servers` connects to etcd only when the comparison
// asks what is stored, and says why when it cannot.
type LazyStored struct {
	// Open connects to the storage and returns how to close it.
	Open    func(ctx context.Context) (storage.Storage, func(), error)
	Keys    engine.Keys
	Timeout time.Duration

	once    sync.Once
	stored  StoredObjects
	close   func()
	openErr error
}

var _ check.StoredObjects = (*LazyStored)(nil)

// StoredVersions opens the storage if it is not open yet, then answers as
// StoredObjects does.
func (l *LazyStored) StoredVersions(ctx context.Context, r *schemas.Resource) (map[string]check.Stored, error) {
	l.once.Do(func() { l.openErr = l.open(ctx) })
	if l.openErr != nil {
		return nil, l.openErr
	}
	return l.stored.StoredVersions(ctx, r)
}

func (l *LazyStored) open(ctx context.Context) error {
	if l.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.Timeout)
		defer cancel()
	}
	st, closeStorage, err := l.Open(ctx)
	if err != nil {
		return err
	}
	l.stored, l.close = StoredObjects{Storage: st, Keys: l.Keys, Timeout: l.Timeout}, closeStorage
	return nil
}

// Close closes the storage, if it was opened.
func (l *LazyStored) Close() {
	if l.close != nil {
		l.close()
	}
}

// StoredInEtcd is LazyStored on the etcd client reaches, its objects
// read through wrap (which decrypts what specd encrypted at rest); the
// connection and each read are bounded by timeout.
func StoredInEtcd(client etcdstorage.ClientConfig, wrap func(storage.Storage) storage.Storage, timeout time.Duration) *LazyStored {
	open := func(ctx context.Context) (storage.Storage, func(), error) {
		cli, err := etcdstorage.Connect(ctx, client)
		if err != nil {
			return nil, nil, err
		}
		return wrap(etcdstorage.New(cli)), func() { _ = cli.Close() }, nil
	}
	return &LazyStored{Open: open, Keys: engine.Keys{}, Timeout: timeout}
}
