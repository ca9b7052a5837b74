package hook

import (
	"context"
	"time"
)

// Reconciler calls the reconcile plugins. An error means the plugin could
// not answer, or its reconcile function failed: the controller retries the
// object with backoff.
type Reconciler interface {
	Reconcile(ctx context.Context, plugin string, req ReconcileRequest) (ReconcileResult, error)
	// Kinds says what the plugin handles, and which finalizer it wants.
	Kinds(ctx context.Context, plugin string) ([]KindHooks, error)
}

// ReconcileRequest is one object to reconcile.
type ReconcileRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	// Object is the current object in the storage version, with its
	// resourceVersion; metadata.deletionTimestamp is set while it is being
	// deleted.
	Object []byte
}

// ReconcileResult is what a reconcile answers.
type ReconcileResult struct {
	// RequeueAfter > 0 reconciles the object again after this long.
	RequeueAfter time.Duration
	// Requeue reconciles it again with backoff, as after an error, without
	// logging one.
	Requeue bool
	// Status, when set, is the object's new status (a JSON object),
	// written through the status subresource.
	Status []byte
	// FinalizerDone, on a deleting object, says the cleanup is finished:
	// the plugin's finalizer is removed.
	FinalizerDone bool
}

// KindHooks is what a plugin says it does for one kind.
type KindHooks struct {
	Group, Kind                  string
	Default, Validate, Reconcile bool
	// Finalizer is the finalizer the reconciler wants on every object of
	// the kind; "" for none.
	Finalizer string
}
