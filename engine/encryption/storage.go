package encryption

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/specd-io/specd/engine/storage"
)

// ErrDecrypt is a stored value no configured provider could read: a key
// removed from the configuration, or a value changed in etcd. Errors of
// reads wrap it and name the resource and the object.
var ErrDecrypt = errors.New("encryption: decryption failed")

// Storage is a storage.Storage that encrypts the values of the resources
// its Config covers. Keys are the engine's: <prefix><group>/<plural>/...
// (engine/keys.go); a first segment that starts with "_" is specd's own
// bookkeeping, never a resource.
type Storage struct {
	base   storage.Storage
	config *Config
	prefix string
}

var _ storage.Storage = (*Storage)(nil)

// Wrap returns base with the values of the resources config covers
// encrypted; prefix is the engine's key prefix (engine.Options.Prefix,
// "/specd/" by default). If base can request watch progress (etcd), so
// can the result.
func Wrap(base storage.Storage, config *Config, prefix string) storage.Storage {
	s := &Storage{base: base, config: config, prefix: prefix}
	if pr, ok := base.(progressRequester); ok {
		return &progressStorage{Storage: s, pr: pr}
	}
	return s
}

// progressRequester is watchcache.ProgressRequester.
type progressRequester interface {
	RequestProgress(ctx context.Context) error
}

// progressStorage is a Storage on a base that requests watch progress:
// the watch cache looks for the method on the storage it is given.
type progressStorage struct {
	*Storage
	pr progressRequester
}

func (p *progressStorage) RequestProgress(ctx context.Context) error {
	return p.pr.RequestProgress(ctx)
}

// resourceOf is the resource whose object or list key is key, or false
// when key is not under one resource.
func (s *Storage) resourceOf(key string) (schema.GroupResource, bool) {
	rest, ok := strings.CutPrefix(key, s.prefix)
	if !ok {
		return schema.GroupResource{}, false
	}
	group, rest, ok := strings.Cut(rest, "/")
	if !ok || strings.HasPrefix(group, "_") {
		return schema.GroupResource{}, false
	}
	if group == storage.CoreGroupKey {
		group = ""
	}
	plural, _, ok := strings.Cut(rest, "/")
	if !ok || plural == "" {
		return schema.GroupResource{}, false
	}
	return schema.GroupResource{Group: group, Resource: plural}, true
}

// transformerOf is the transformer of the object under key, nil when its
// values are stored as they are.
func (s *Storage) transformerOf(key string) (value.Transformer, schema.GroupResource) {
	gr, ok := s.resourceOf(key)
	if !ok {
		return nil, gr
	}
	return s.config.For(gr.Group, gr.Resource), gr
}

// encrypt is value as stored under key.
func (s *Storage) encrypt(ctx context.Context, key string, v []byte) ([]byte, error) {
	t, gr := s.transformerOf(key)
	if t == nil {
		return v, nil
	}
	out, err := t.TransformToStorage(ctx, v, value.DefaultContext(key))
	if err != nil {
		return nil, fmt.Errorf("encryption: encrypt %s %q: %w", gr, s.objectName(gr, key), err)
	}
	return out, nil
}

// decrypt is kv read with t; Stale says t read it with another provider
// or key than the one it writes with.
func (s *Storage) decrypt(ctx context.Context, t value.Transformer, gr schema.GroupResource, kv storage.KeyValue) (storage.KeyValue, error) {
	out, stale, err := t.TransformFromStorage(ctx, kv.Value, value.DefaultContext(kv.Key))
	if err != nil {
		return storage.KeyValue{}, fmt.Errorf("%w: %s %q: %w", ErrDecrypt, gr, s.objectName(gr, kv.Key), err)
	}
	kv.Value, kv.Stale = out, stale
	return kv, nil
}

// objectName is the namespace/name (or name) part of an object's key.
func (s *Storage) objectName(gr schema.GroupResource, key string) string {
	group := gr.Group
	if group == "" {
		group = storage.CoreGroupKey
	}
	return strings.TrimPrefix(key, s.prefix+group+"/"+gr.Resource+"/")
}

func (s *Storage) Create(ctx context.Context, key string, v []byte) (int64, error) {
	out, err := s.encrypt(ctx, key, v)
	if err != nil {
		return 0, err
	}
	return s.base.Create(ctx, key, out)
}

func (s *Storage) Update(ctx context.Context, key string, v []byte, expectedRevision int64) (int64, error) {
	out, err := s.encrypt(ctx, key, v)
	if err != nil {
		return 0, err
	}
	return s.base.Update(ctx, key, out, expectedRevision)
}

func (s *Storage) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := s.base.Get(ctx, key)
	if err != nil {
		return kv, err
	}
	if t, gr := s.transformerOf(key); t != nil {
		return s.decrypt(ctx, t, gr, kv)
	}
	return kv, nil
}

// Delete returns the deleted value decrypted. Should that fail, the
// object is gone all the same and the error says so.
func (s *Storage) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, error) {
	kv, err := s.base.Delete(ctx, key, expectedRevision)
	if err != nil {
		return kv, err
	}
	if t, gr := s.transformerOf(key); t != nil {
		if kv, err = s.decrypt(ctx, t, gr, kv); err != nil {
			return kv, fmt.Errorf("deleted, but: %w", err)
		}
	}
	return kv, nil
}

// List decrypts every item, or fails: a list never leaves out an object
// it cannot read.
func (s *Storage) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	sc := s.scope(prefix)
	if sc.whole && sc.t == nil {
		return s.base.List(ctx, prefix, opts)
	}
	res, err := s.base.List(ctx, prefix, opts)
	if err != nil {
		return res, err
	}
	for i, kv := range res.Items {
		t, gr := sc.of(s, kv.Key)
		if t == nil {
			continue
		}
		if res.Items[i], err = s.decrypt(ctx, t, gr, kv); err != nil {
			return storage.ListResult{}, err
		}
	}
	return res, nil
}

// scope is what a list or watch prefix spans. When whole, every key
// under it has one transformer, t (nil: stored as is), of resource gr:
// the prefix is within one resource, or within none. Otherwise it spans
// several resources and each key is looked at.
type scope struct {
	whole bool
	t     value.Transformer
	gr    schema.GroupResource
}

func (s *Storage) scope(prefix string) scope {
	if gr, ok := s.resourceOf(prefix); ok {
		return scope{whole: true, t: s.config.For(gr.Group, gr.Resource), gr: gr}
	}
	if strings.HasPrefix(s.prefix, prefix) {
		return scope{} // every resource
	}
	rest, ok := strings.CutPrefix(prefix, s.prefix)
	return scope{whole: !ok || strings.HasPrefix(rest, "_")}
}

// of is the transformer of the object under key.
func (sc scope) of(s *Storage, key string) (value.Transformer, schema.GroupResource) {
	if sc.whole {
		return sc.t, sc.gr
	}
	return s.transformerOf(key)
}
