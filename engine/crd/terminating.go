package crd

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// errTerminating is kube's reason for refusing a create while the CRD
// is being deleted.
var errTerminating = errors.New("create not allowed while custom resource definition is terminating")

var _ engine.CreateCheck = (*API)(nil).CreateCheck

// CreateCheck is the engine's CreateCheck: it refuses, with kube's 403
// Forbidden, a new object of a resource whose CRD (one of the API's) is
// being deleted, as kube-apiserver's handler for custom resources does,
// so that the finalizer's delete of every object ends. Updates and
// deletes go on: finalizers must still be removed.
func (a *API) CreateCheck(_ context.Context, r *schemas.Resource, name string) error {
	if r.CRD == "" {
		return nil
	}
	o := a.get(r.CRD)
	if o == nil || !ownedBy(r, o.Meta.Name) || !o.terminating() {
		return nil
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: r.Group, Resource: r.Plural}, name, errTerminating)
}

// terminating reports whether o is being deleted, as kube tells it: a
// deletionTimestamp, or a True Terminating condition.
func (o *object) terminating() bool {
	return o.deleting() || isTrue(o.Status.Conditions, Terminating)
}
