package engine

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Upkeep is what background work does to the stored objects of a Store
// beyond the API's verbs: the garbage collector's scans and conditional
// edits (engine/gc, upkeep_gc.go), which the namespace controller shares;
// the raw access that storage version migration rewrites through
// (engine/migrate); and the namespaces that hold objects, which namespace
// adoption reads (engine/namespace). The packages that do that work are
// handed it; the API's callers never are.
type Upkeep struct {
	s *Store
}

// Upkeep returns the upkeep of s's objects.
func (s *Store) Upkeep() *Upkeep { return &Upkeep{s: s} }

// RawStorage is the storage the objects are in, beneath the Store's own
// layers (finalizers, owner-reference triggers): a migration rewrites
// bytes that mean the same, which must neither delete an object nor wake
// the garbage collector.
func (u *Upkeep) RawStorage() storage.Storage {
	if f, ok := u.s.storage.(finalizingStorage); ok {
		return f.Storage
	}
	return u.s.storage
}

// Keys is where the objects are stored.
func (u *Upkeep) Keys() Keys { return u.s.keys }

// ToStorageVersion converts stored bytes of r to r's storage version, with
// the conversion rules of r's registry snapshot.
func (u *Upkeep) ToStorageVersion(r *schemas.Resource, obj []byte) ([]byte, error) {
	return u.s.conv.of(r).Convert(obj, r.StorageAPIVersion())
}

// HeldNamespaces lists the namespaces in which objects of r are stored,
// reading one key per namespace: a namespaced resource's keys are grouped
// by namespace, so the next namespace starts just past the last key of
// one.
func (u *Upkeep) HeldNamespaces(ctx context.Context, r *schemas.Resource) ([]string, error) {
	prefix := u.s.keys.Resource(r)
	var out []string
	opts := storage.ListOptions{Limit: 1}
	for {
		res, err := u.s.storage.List(ctx, prefix, opts)
		if err != nil {
			return nil, err
		}
		if len(res.Items) == 0 {
			return out, nil
		}
		ns, _, ok := strings.Cut(res.Items[0].Key[len(prefix):], "/")
		if !ok { // not an object key of a namespaced resource
			return out, nil
		}
		out = append(out, ns)
		// '0' follows '/': the first key past every key of ns.
		opts.StartKey, opts.Revision = prefix+ns+"0", res.Revision
		if !res.More {
			return out, nil
		}
	}
}
