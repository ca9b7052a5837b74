package engine

import (
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// What the storage version migration (engine/migrate) reads and writes:
// the stored bytes of a resource, beside which it keeps its progress, and
// the conversion of an object to its resource's storage version.

// RawStorage is the Store's storage without the finalizing layer: a
// migration write changes no finalizer and no owner, so it needs neither
// the deletion of an emptied terminating object nor the collector's
// trigger.
func (s *Store) RawStorage() storage.Storage {
	if f, ok := s.storage.(finalizingStorage); ok {
		return f.Storage
	}
	return s.storage
}

// KeyPrefix is the prefix of every key of the Store (Options.Prefix).
func (s *Store) KeyPrefix() string { return s.prefix }

// ResourcePrefix is the key prefix of every stored object of r. It is
// also the name of r's watch cache (the resource argument of Cache): it
// depends on r's group and plural only, so it names the same cache in
// every registry snapshot that serves r.
func (s *Store) ResourcePrefix(r *schemas.Resource) string { return s.listPrefix(r, "") }

// ToStorageVersion converts obj, stored bytes of r in any of its
// versions, to r's storage version with the rules of r's registry
// snapshot. The converter's error is returned as it is.
func (s *Store) ToStorageVersion(r *schemas.Resource, obj []byte) ([]byte, error) {
	return s.converterOf(r).Convert(obj, r.StorageAPIVersion())
}
