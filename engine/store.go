package engine

import (
	"log/slog"
	"time"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// Store serves the objects of every resource from one Storage. It holds no
// schema state: each call names the resource version it serves, taken from
// the registry snapshot of the request.
type Store struct {
	storage storage.Storage
	conv    conversion
	keys    Keys
	now     func() time.Time
	log     *slog.Logger
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
	mutators mutators
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
	Admission func(self *Store) hook.Admission
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
	s := &Store{maxBodyBytes: opts.MaxBodyBytes, conv: conversion{converter: opts.Converter, converterFor: opts.Converters}, keys: opts.Keys, now: opts.Now, log: opts.Logger,
		fields:  fieldManagers{now: opts.Now, log: opts.Logger},
		genName: generateName, onDelete: opts.OnDelete, cache: opts.Cache, admit: admitter{checks: keyByResource(opts.WriteChecks), log: opts.Logger},
		strategies: strategies(keyByResource(opts.Strategies)), nsCheck: opts.NamespaceCheck, createCheck: opts.CreateCheck, mutators: mutators(keyByResource(opts.Mutators)),
		strategicMeta: opts.StrategicPatchMeta}
	s.storage = finalizing(limitSize(storage, opts.MaxObjectBytes), opts.OnDelete, s.strategies.holds(s.keys))
	if opts.Admission != nil {
		s.admit.admission = opts.Admission(s)
	}
	return s
}

// Subresources returns the update-only subresources r's Strategy serves
// besides status and scale, sorted (nil for none): discovery and the
// OpenAPI documents list them as kube-apiserver lists namespaces/finalize.
func (s *Store) Subresources(r *schemas.Resource) []string {
	return s.strategies.subresources(r)
}

// A Store is the whole surface (surface.go).
var _ Objects = (*Store)(nil)
