package engine

// TODO(engine helper): replace each stub with its own file (create.go,
// get.go, list.go, update.go, delete.go) and delete this file.

import (
	"context"

	"github.com/specd-io/specd/schemas"
)

// Create stores a new object from body (JSON) in namespace ("" for cluster
// scope) and returns it in rv's version.
func (s *Store) Create(ctx context.Context, rv *schemas.ResourceVersion, namespace string, body []byte, opts WriteOptions) (Result, error) {
	panic("not implemented")
}

// Get returns one object in rv's version.
func (s *Store) Get(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error) {
	panic("not implemented")
}

// List returns a <Kind>List of the objects in namespace ("" for all
// namespaces or cluster scope) in rv's version.
func (s *Store) List(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req ListRequest) ([]byte, error) {
	panic("not implemented")
}

// Update replaces an object with body, which must carry the current
// metadata.resourceVersion.
func (s *Store) Update(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error) {
	panic("not implemented")
}

// Delete removes an object and answers what kube-apiserver answers for a
// custom resource: a Status of Success with the object's details.
func (s *Store) Delete(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, opts DeleteOptions) (Result, error) {
	panic("not implemented")
}
