package engine

import (
	"context"

	"github.com/specd-io/specd/schemas"
)

// Get returns one object in rv's version.
func (s *Store) Get(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error) {
	kv, err := s.storage.Get(ctx, s.objectKey(rv.Resource, namespace, name))
	if err != nil {
		return nil, storageError(rv.Resource, name, err)
	}
	obj, err := s.toVersion(rv, kv.Value)
	if err != nil {
		return nil, err
	}
	return served(obj, kv.ModRevision)
}
