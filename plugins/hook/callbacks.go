package hook

import "context"

// ResourceRef names a resource as a REST client does.
type ResourceRef struct{ Group, Version, Resource string }

// Callbacks is what a reconciler may do through specd. Errors should be
// *apierrors.StatusError (k8s.io/apimachinery/pkg/api/errors) so that the
// plugin gets the code and reason; any other error reaches it as a 500.
type Callbacks interface {
	Get(ctx context.Context, r ResourceRef, namespace, name string) ([]byte, error)
	// List answers a <Kind>List.
	List(ctx context.Context, r ResourceRef, namespace, labelSelector string) ([]byte, error)
	Create(ctx context.Context, r ResourceRef, namespace string, obj []byte) ([]byte, error)
	Update(ctx context.Context, r ResourceRef, namespace, name string, obj []byte) ([]byte, error)
	UpdateStatus(ctx context.Context, r ResourceRef, namespace, name string, obj []byte) ([]byte, error)
	Patch(ctx context.Context, r ResourceRef, namespace, name, patchType string, patch []byte, subresource string) ([]byte, error)
	Delete(ctx context.Context, r ResourceRef, namespace, name, propagationPolicy string) error
}
