package sdk

import "time"

// Operation is the write an admission request is for.
type Operation string

const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
)

// AdmissionRequest is what a defaulting or validating function gets.
type AdmissionRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	Operation                      Operation
	// Subresource is "status" or "scale" for a write through that
	// subresource, "" for a write of the object itself.
	Subresource string
	// Object is the object as it will be written. A DefaultFunc changes
	// it in place; a ValidateFunc should not.
	Object *Object
	// OldObject is the stored object on Update, nil on Create.
	OldObject *Object
	// DryRun is true when nothing will be stored: a function must then
	// have no side effects.
	DryRun bool
	// UserInfo is who asked for the write, as Kubernetes admission tells
	// it. A reconciling plugin's own writes come as "system:plugin:<name>".
	// It is empty when specd serves without authentication.
	UserInfo UserInfo
}

// UserInfo is an authenticated user, as Kubernetes describes one.
type UserInfo struct {
	Username string
	UID      string
	Groups   []string
	// Extra is what the authenticator knows beyond name and groups, as
	// OIDC claims or the scopes of a token.
	Extra map[string][]string
}

// ReconcileRequest is what a reconciling function gets: the object as it is
// stored now, and a client to act through specd.
type ReconcileRequest struct {
	Group, Version, Kind, Resource string
	Namespace, Name                string
	// Object is the current object, in the resource's storage version.
	// Object.IsDeleting reports a deletion in progress.
	Object *Object
	Client Client
	// Events records Kubernetes Events about Object:
	// req.Events.Normal("Scaled", "Scaled to 3 ships").
	Events *Events
}

// Result is what a reconciling function answers.
type Result struct {
	// Status, when not nil, is the object's new status: a struct or map
	// (encoded with encoding/json), an *Object, or JSON bytes. specd writes
	// it through the status subresource and sets status.observedGeneration.
	Status any
	// RequeueAfter > 0 reconciles the object again after this long, even if
	// nothing changes.
	RequeueAfter time.Duration
	// Requeue reconciles the object again soon, with backoff, without the
	// error log a returned error makes.
	Requeue bool
	// FinalizerDone, on an object being deleted, says cleanup is finished:
	// specd removes the reconciler's finalizer and the deletion completes.
	FinalizerDone bool
}
