package plugins

import (
	"context"
	"time"
)

// AdmissionRequest is one object to default or validate.
type AdmissionRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	Operation                      string // "CREATE" or "UPDATE"
	Subresource                    string // "status", "scale", or "" for the object itself
	Object                         []byte // JSON of the object as it will be written
	OldObject                      []byte // JSON of the stored object on UPDATE, nil on CREATE
	DryRun                         bool
}

// FieldError is one field problem a validating plugin found. Type is a
// k8s.io/apimachinery/pkg/util/validation/field ErrorType string
// ("FieldValueInvalid", "FieldValueRequired", ...), Field a path as
// "spec.replicas", Value the JSON of the bad value ("" if none).
type FieldError struct {
	Type, Field, Message string
	Value                string
}

// ReconcileRequest is one object to reconcile.
type ReconcileRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	// Object is the current object (storage version), with its
	// resourceVersion; deletionTimestamp is set when it is being deleted.
	Object []byte
}

// ReconcileResult is a reconciler's answer.
type ReconcileResult struct {
	RequeueAfter  time.Duration // > 0: reconcile again after this long
	Requeue       bool          // reconcile again with backoff, as after an error, without logging one
	Status        []byte        // the object's new status (a JSON object), nil to leave it
	FinalizerDone bool          // on a deleting object: cleanup finished, the finalizer may go
}

// KindHooks is what a plugin says it does for one kind.
type KindHooks struct {
	Group, Kind                  string
	Default, Validate, Reconcile bool
	Finalizer                    string // a finalizer the reconciler wants on every object of the kind ("" none)
}

// PluginHealth is the state of one plugin, for /readyz and metrics.
type PluginHealth struct {
	Name      string
	Running   bool
	Restarts  int
	LastError string
	// State is one of "idle" (not started yet: plugins start on first
	// use), "running", "restarting" (died; a restart is due after backoff)
	// or "failed" (the last start failed; the next use tries again).
	State string
}

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
	Delete(ctx context.Context, r ResourceRef, namespace, name string, propagationPolicy string) error
}
