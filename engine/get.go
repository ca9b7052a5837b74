package engine

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Get returns the object ref names in ref's version: through the status
// subresource too, as kube-apiserver answers it, and through the scale
// subresource its Scale (scale.go).
func (s *Store) Get(ctx context.Context, ref Ref) ([]byte, error) {
	rv := ref.Version
	switch {
	case ref.Subresource == "scale":
		return s.getScale(ctx, ref)
	case ref.Subresource != "" && (ref.Subresource != "status" || !rv.StatusSubresource):
		return nil, apierrors.NewNotFound(groupResource(rv.Resource), ref.Name)
	}
	return s.getObject(ctx, ref)
}
