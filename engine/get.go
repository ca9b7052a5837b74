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
	out, err := appendWithResourceVersion(make([]byte, 0, len(obj)+32), obj, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	return out, nil
}
