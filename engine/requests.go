package engine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Ref names what a request acts on: one version of a resource, as the
// caller's registry snapshot serves it; a namespace ("" for a
// cluster-scoped resource, or for every namespace in a list or watch); an
// object's name ("" for the collection); and a subresource ("" for the
// object itself, else "status", "scale" or one that a Strategy serves).
type Ref struct {
	Version     *schemas.ResourceVersion
	Namespace   string
	Name        string
	Subresource string
}

// WriteRequest is one create or update: what it writes to, the body the
// client sent (JSON), and the options of the write.
type WriteRequest struct {
	Ref
	Body    []byte
	Options WriteOptions
}

// PatchRequest is one patch: what it patches, the patch and its type, and
// the options of the write.
type PatchRequest struct {
	Ref
	Type    PatchType
	Patch   []byte
	Options PatchOptions
}

// FieldValidation is the fieldValidation query parameter.
type FieldValidation string

const (
	FieldValidationStrict FieldValidation = "Strict"
	FieldValidationWarn   FieldValidation = "Warn"
	FieldValidationIgnore FieldValidation = "Ignore"
)

// WriteOptions are the options every write takes.
type WriteOptions struct {
	FieldValidation FieldValidation // Warn when empty
	DryRun          bool            // validate everything, store nothing
	// FieldManager names the writer in metadata.managedFields: the
	// fieldManager parameter, else the user agent's prefix.
	FieldManager string
	// BodyProblems are what a strict decoding of the body as the client
	// sent it found before it became JSON (the duplicate keys of a YAML
	// body, which the conversion drops): judged with the JSON decoding's
	// own, as FieldValidation says.
	BodyProblems []error
	// applied are the managed fields a server-side apply computed; the
	// write keeps them instead of tracking an update (apply.go).
	applied *appliedFields
}

// DeleteOptions are the options of a delete.
type DeleteOptions struct {
	DryRun bool
	// Preconditions, when set, must match the stored object.
	UID             string
	ResourceVersion string
	// PropagationPolicy is Background (when empty), Foreground or Orphan;
	// with OrphanDependents set (the deprecated field), it decides.
	PropagationPolicy metav1.DeletionPropagation
	OrphanDependents  *bool
	// GracePeriodSeconds is accepted and, as for a custom resource in
	// kube-apiserver, has no effect: objects without finalizers go at once.
	GracePeriodSeconds *int64
}

// ListRequest is the query parameters of a list the engine understands.
type ListRequest struct {
	Limit    int64
	Continue string
	Selector Selector
	// ResourceVersion and ResourceVersionMatch say how fresh the list must
	// be, as in Kubernetes: unset is a consistent read (the watch cache
	// once it has storage's current revision, else storage), "0" any (the
	// cache), N with NotOlderThan (or no match) at least N (the cache once
	// it has N), N with Exact the snapshot at N (storage).
	ResourceVersion      string
	ResourceVersionMatch string
}

// Result is what a write answers: the object in the request's version and
// the warnings to send in Warning headers.
type Result struct {
	Object   []byte
	Warnings []string
}

// PatchType is the media type of a patch.
type PatchType string

// The patch types specd serves for every resource, as kube-apiserver
// does for a custom resource; StrategicMergePatchType is served for the
// kinds Options.StrategicPatchMeta knows.
const (
	JSONPatchType  PatchType = "application/json-patch+json"
	MergePatchType PatchType = "application/merge-patch+json"
	ApplyPatchType PatchType = "application/apply-patch+yaml"
)

// StrategicMergePatchType is kube's strategic merge patch: a merge patch
// whose lists merge by the patch metadata of the kind's Go type (a merge
// key, or replaced whole), with the $patch, $setElementOrder,
// $deleteFromPrimitiveList and $retainKeys directives.
const StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"

// PatchOptions are the options of a patch.
type PatchOptions struct {
	WriteOptions
	// Force takes over the fields other managers own (apply only).
	Force bool
}

// PatchResult is what a patch answers; Created is set when an apply
// created the object.
type PatchResult struct {
	Result
	Created bool
}

// WatchRequest is the query parameters of a watch.
type WatchRequest struct {
	// ResourceVersion: "" starts with the current objects read from
	// storage (consistent), "0" with those of the cache, N with the
	// changes after N.
	ResourceVersion      string
	ResourceVersionMatch string
	// SendInitialEvents (with ResourceVersionMatch NotOlderThan) asks for
	// the objects first, then a BOOKMARK annotated
	// k8s.io/initial-events-end; false starts at ResourceVersion with no
	// objects.
	SendInitialEvents *bool
	AllowBookmarks    bool
	// Selector filters the events; a fieldSelector metadata.name=NAME
	// watches one object.
	Selector Selector
}

// WatchEvent is one event in the watcher's version: Object is the whole
// object JSON ({"apiVersion","kind","metadata":{"resourceVersion"}} for a
// BOOKMARK).
type WatchEvent struct {
	Type   storage.EventType
	Object []byte
}

// appliedFields are the managed fields a server-side apply computed.
type appliedFields struct {
	entries []metav1.ManagedFieldsEntry
}
