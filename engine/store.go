package engine

import (
	"context"
	"log/slog"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// Store serves the objects of every resource from one Storage. It holds no
// schema state: each call names the resource version it serves, taken from
// the registry snapshot of the request.
type Store struct {
	storage   storage.Storage
	converter converters.Converter
	keys      Keys
	now       func() time.Time
	log       *slog.Logger
	// genName makes a name from generateName; tests replace it.
	genName func(base string) string
	// onDelete is called after a delete or a deletion mark is stored.
	onDelete func()
	cache    Cache
	// fields holds the field manager of each resource version (managedfields.go).
	fields fieldManagers
	// admit calls the plugins schemas bind (admission.go).
	admit admitter
	// mutators are Options.Mutators (mutate.go).
	mutators byResource[Mutator]
	// converterFor, when set, is the converter of a resource's registry
	// snapshot (Options.Converters).
	converterFor func(*schemas.Resource) converters.Converter
	// maxBodyBytes bounds a patch's result (Options.MaxBodyBytes).
	maxBodyBytes int64
	// strategies are Options.Strategies; nsCheck Options.NamespaceCheck.
	strategies strategies
	nsCheck    NamespaceCheck
	// createCheck is Options.CreateCheck.
	createCheck CreateCheck
	// strategicMeta is Options.StrategicPatchMeta (strategicpatch.go).
	strategicMeta StrategicPatchMeta
}

// Options configure a Store.
type Options struct {
	// Keys is where the objects are stored (Keys.Prefix "/specd/" when
	// empty).
	Keys   Keys
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Converter converts between a resource's versions; converters.None
	// when nil.
	Converter converters.Converter
	// Converters, when set, returns the converter of the registry
	// snapshot r belongs to, and wins over Converter: with a schema
	// directory that is reloaded while specd serves, each request
	// converts with the rules of the snapshot it holds. A nil answer
	// means Converter.
	Converters func(r *schemas.Resource) converters.Converter
	// Cache, when set, serves watches and the lists that may be served
	// from memory (see ListRequest.ResourceVersion). Without one the
	// Store cannot watch.
	Cache Cache
	// OnDelete, when set, is called after an object is deleted or marked
	// for deletion, and after a write of an object with ownerReferences:
	// the garbage collector's prompt trigger. It must not block.
	OnDelete func()
	// Admission makes what calls the defaulting and validation plugins
	// that schemas bind with x-specd-hooks. It is given the Store itself:
	// the plugins it calls may call back into the Store (a reconciler's
	// write through the plugin host's callbacks comes back to the host's
	// admission plugins), so the two are made together here. Without it
	// a write to a resource with such a binding fails as the binding's
	// failurePolicy says.
	Admission func(self Objects) hook.Admission
	// MaxBodyBytes is the request body limit; DefaultMaxBodyBytes when 0.
	// A patch whose result is larger is refused with 413, as the body of
	// a PUT would be, and so is a JSON patch whose copies add more.
	MaxBodyBytes int64
	// MaxObjectBytes, when > 0, is the largest object a write stores, as
	// stored: a larger one is refused with 413 before it reaches storage.
	// It must be no more than the storage takes in one write (for etcd,
	// its --max-request-bytes less etcdstorage.RequestOverhead).
	MaxObjectBytes int64
	// WriteChecks are checks a create or update (and so a patch or apply)
	// of a resource must pass, keyed by the resource's plural.group (see
	// WriteCheck).
	WriteChecks map[string]WriteCheck
	// Mutators change the objects written to a resource as they are
	// decoded, keyed by the resource's plural.group (see Mutator).
	Mutators map[string]Mutator
	// TTL is how long the objects of a resource live after their last
	// create or update, keyed by the plural.group of the resource whose
	// storage they are in ("events" for core events, and so for the
	// events.k8s.io events kept with them): the storage deletes them after
	// it (storage.Expirer), and watchers see them DELETED. Other
	// resources' writes are not slowed.
	TTL map[string]time.Duration
	// Strategies are the behaviour of built-in resources beyond their
	// schemas (see Strategy), keyed by the resource's plural.group.
	Strategies map[string]*Strategy
	// NamespaceCheck, when set, vets every create of an object of a
	// namespaced resource, whichever its group: built-in or declared.
	NamespaceCheck NamespaceCheck
	// CreateCheck, when set, vets every create, of every resource, first.
	CreateCheck CreateCheck
	// StrategicPatchMeta, when set, gives the strategic merge patch
	// metadata of the kinds that take strategic merge patches
	// (StrategicMergePatchType): kube-apiserver serves them for its
	// built-in kinds, and answers 415 for the others.
	StrategicPatchMeta StrategicPatchMeta
}

// WriteCheck vets one write of a resource before its validation plugin
// sees it: req carries the object in the storage version (and the stored
// one on update), and the request's context the user. An error refuses
// the write and is answered as it is (a Status error keeps its code), so
// that a check such as RBAC's escalation prevention answers 403.
type WriteCheck func(ctx context.Context, req hook.AdmissionRequest) error

// NewStore returns a Store on storage.
func NewStore(storage storage.Storage, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Converter == nil {
		opts.Converter = converters.None{}
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	limitJSONPatchCopies(opts.MaxBodyBytes)
	opts.Keys.Prefix = opts.Keys.prefix()
	storage = expireKeys(storage, opts.Keys.Prefix, opts.TTL, opts.Logger)
	s := &Store{maxBodyBytes: opts.MaxBodyBytes, converter: opts.Converter, converterFor: opts.Converters, keys: opts.Keys, now: opts.Now, log: opts.Logger,
		genName: generateName, onDelete: opts.OnDelete, cache: opts.Cache, admit: admitter{checks: keyByResource(opts.WriteChecks), log: opts.Logger},
		strategies: strategies(keyByResource(opts.Strategies)), nsCheck: opts.NamespaceCheck, createCheck: opts.CreateCheck, mutators: keyByResource(opts.Mutators),
		strategicMeta: opts.StrategicPatchMeta}
	s.storage = finalizing(limitSize(storage, opts.MaxObjectBytes), opts.OnDelete, s.holdsOf(s.strategies))
	if opts.Admission != nil {
		s.admit.admission = opts.Admission(s)
	}
	return s
}

// converterOf returns the converter of r's registry snapshot.
func (s *Store) converterOf(r *schemas.Resource) converters.Converter {
	if s.converterFor != nil {
		if c := s.converterFor(r); c != nil {
			return c
		}
	}
	return s.converter
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
