package engine

import "context"

// getObject returns the object ref names in ref's version, whatever ref's
// subresource.
func (s *Store) getObject(ctx context.Context, ref Ref) ([]byte, error) {
	rv := ref.Version
	kv, err := s.storage.Get(ctx, s.keys.Object(rv.Resource, ref.Namespace, ref.Name))
	if err != nil {
		return nil, storageError(rv.Resource, ref.Name, err)
	}
	obj, err := s.conv.toVersion(rv, kv.Value)
	if err != nil {
		return nil, err
	}
	return served(obj, kv.ModRevision)
}
