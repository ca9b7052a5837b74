package engine

import (
	"context"

	"github.com/specd-io/specd/schemas"
)

// The engine's surface: what the server, the controllers, the plugins'
// callbacks and the built-in kinds' packages ask of it, declared once
// here and composed as they need it. *Store implements all of it. The
// upkeep that background work does on stored objects (garbage
// collection, migration, namespace clean-up) is Upkeep's, not this.

// Reader reads objects.
type Reader interface {
	// Get returns the object ref names, in ref's version; through the
	// scale subresource, its autoscaling/v1 Scale.
	Get(ctx context.Context, ref Ref) ([]byte, error)
	// List returns a <Kind>List of the objects of ref's namespace.
	List(ctx context.Context, ref Ref, req ListRequest) ([]byte, error)
}

// Writer writes objects.
type Writer interface {
	// Create stores a new object in req's namespace.
	Create(ctx context.Context, req WriteRequest) (Result, error)
	// Update replaces the object req names, or what its subresource
	// holds (a status, a scale, a Namespace's finalizers).
	Update(ctx context.Context, req WriteRequest) (Result, error)
	// Patch patches the object req names, or its subresource; a server-
	// side apply may create it.
	Patch(ctx context.Context, req PatchRequest) (PatchResult, error)
	// Delete deletes the object ref names, or marks it for deletion
	// while finalizers hold it.
	Delete(ctx context.Context, ref Ref, opts DeleteOptions) (Result, error)
	// DeleteCollection deletes the objects of ref's namespace that req
	// selects, and returns them as a list.
	DeleteCollection(ctx context.Context, ref Ref, req ListRequest, opts DeleteOptions) ([]byte, error)
}

// Watcher watches objects.
type Watcher interface {
	// Watch starts a watch of the objects of ref's namespace.
	Watch(ctx context.Context, ref Ref, req WatchRequest) (*Watch, error)
}

// Subresources tells which subresources a resource serves beyond the
// status and scale its schema declares.
type Subresources interface {
	// Subresources are those of r's Strategy (a Namespace's finalize),
	// sorted: each takes updates only.
	Subresources(r *schemas.Resource) []string
}

// ReadWriter reads and writes objects.
type ReadWriter interface {
	Reader
	Writer
}

// Objects is the whole surface: what the API serves.
type Objects interface {
	Reader
	Writer
	Watcher
	Subresources
}
