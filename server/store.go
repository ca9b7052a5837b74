package server

import (
	"context"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// ObjectStore is what the server needs from the engine: the verbs it
// serves, on raw JSON bytes. *engine.Store satisfies it.
type ObjectStore interface {
	Create(ctx context.Context, rv *schemas.ResourceVersion, namespace string, body []byte, opts engine.WriteOptions) (engine.Result, error)
	Get(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error)
	List(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req engine.ListRequest) ([]byte, error)
	Update(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts engine.WriteOptions) (engine.Result, error)
	UpdateStatus(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts engine.WriteOptions) (engine.Result, error)
	Delete(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, opts engine.DeleteOptions) (engine.Result, error)
	Patch(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, pt engine.PatchType, patch []byte, opts engine.PatchOptions) (engine.PatchResult, error)
}

var _ ObjectStore = (*engine.Store)(nil)
