package engine

import (
	"context"

	"github.com/specd-io/specd/schemas"
)

// Objects is what the API's callers need from the engine: the verbs on raw
// JSON, each on one resource version of the caller's registry snapshot.
// The server serves them over HTTP, and the controllers' Client serves them
// to reconcile plugins. *Store implements it.
type Objects interface {
	Create(ctx context.Context, rv *schemas.ResourceVersion, namespace string, body []byte, opts WriteOptions) (Result, error)
	Get(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error)
	List(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req ListRequest) ([]byte, error)
	Update(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error)
	UpdateStatus(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts WriteOptions) (Result, error)
	Delete(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, opts DeleteOptions) (Result, error)
	Patch(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, pt PatchType, patch []byte, opts PatchOptions) (PatchResult, error)
}

var _ Objects = (*Store)(nil)
