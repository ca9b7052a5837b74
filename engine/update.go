package engine

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/plugins/hook"
)

// Update replaces the object req names with req.Body, which must carry
// the current metadata.resourceVersion (unless the resource allows an
// unconditional update). Through a subresource it writes what that
// subresource holds: the status alone, keeping spec and metadata as
// stored and the generation where it is (a resource with a status
// subresource); the Scale (scale.go); or what the resource's Strategy
// lets one of its update-only subresources change (a Namespace's
// finalize). Any other subresource is a 404 NotFound.
func (s *Store) Update(ctx context.Context, req WriteRequest) (Result, error) {
	r := req.Version.Resource
	switch req.Subresource {
	case "":
	case "scale":
		return s.updateScale(ctx, req)
	case "status":
		if !req.Version.StatusSubresource {
			return Result{}, apierrors.NewNotFound(groupResource(r), req.Name)
		}
	default:
		if !s.strategies.serves(r, req.Subresource) {
			return Result{}, apierrors.NewNotFound(groupResource(r), req.Name)
		}
	}
	return s.update(ctx, newWrite(ctx, hook.OperationUpdate, req.Ref, req.Options), req.Body)
}
