package engine

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/schemas"
)

// Strategy is what kube-apiserver does for one built-in resource beyond
// what its schema says, as its registry strategies do (a Namespace gets
// spec.finalizers on create and stays, Terminating, until they are gone).
// The package that owns the behaviour (engine/namespace) makes it; the
// Store calls it on every write path: create, update, patch, apply,
// status, delete, deletecollection, the garbage collector. Every field
// may be nil.
type Strategy struct {
	// PrepareCreate edits a new object (in the request's version, after
	// defaulting, with its final name) before it is validated.
	PrepareCreate func(obj map[string]any)
	// PrepareUpdate edits an update of old to obj (in the request's
	// version) before it is validated; subresource is "" for the object
	// itself, "status", "scale", or one of Subresources.
	PrepareUpdate func(obj, old map[string]any, subresource string)
	// Subresources are the update-only subresources the resource serves
	// besides status and scale (an Update through them), such as a
	// Namespace's "finalize".
	Subresources []string
	// CheckDelete vets a delete of the named object before it is read: an
	// error refuses it as it is (a Status error keeps its code).
	CheckDelete func(ctx context.Context, name string) error
	// Holds reports whether a stored object stays, though no
	// metadata.finalizers holds it, when it is deleted. It is then marked
	// for deletion instead, and deleted by the first write after which it
	// holds nothing, as when its last finalizer is removed.
	Holds func(stored []byte) bool
	// MarkDeleting edits a stored object as a delete marks it.
	MarkDeleting func(stored []byte) ([]byte, error)
	// StatusMetadata lets a write through the status subresource change
	// the object's metadata (labels, annotations, ...) as a write of the
	// object does, as kube's Namespace status strategy does; otherwise a
	// status write keeps the stored metadata, as kube's custom resources'
	// does.
	StatusMetadata bool
}

// NamespaceCheck vets the create of an object of a namespaced resource
// (Options.NamespaceCheck). An error refuses the create and is answered
// as it is, as kube-apiserver's NamespaceLifecycle admission answers 404
// for a namespace that does not exist.
type NamespaceCheck interface {
	// CheckNamespace vets the create of the object ref names (its name,
	// or its generateName when the name is yet to be made) in ref's
	// namespace. objects is the Store that creates it, which the check
	// may read the Namespace from: given here rather than to the check's
	// maker, since the Store is made with the check.
	CheckNamespace(ctx context.Context, objects Reader, ref Ref) error
}

// CreateCheck vets the create of an object of any resource r
// (Options.CreateCheck); name is the object's name, "" when it is yet to
// be generated. An error refuses the create and is answered as it is,
// before the NamespaceCheck, as kube-apiserver's handler for custom
// resources refuses a create while their CRD is being deleted.
type CreateCheck func(ctx context.Context, r *schemas.Resource, name string) error

// byResource holds what Options key by plural.group, by group and
// resource instead: a lookup on every write builds no string.
type byResource[T any] map[schema.GroupResource]T

func keyByResource[T any](byName map[string]T) byResource[T] {
	if len(byName) == 0 {
		return nil
	}
	out := make(byResource[T], len(byName))
	for name, v := range byName {
		out[schema.ParseGroupResource(name)] = v
	}
	return out
}

// of returns the value for r, the zero value for none.
func (m byResource[T]) of(r *schemas.Resource) T {
	return m[schema.GroupResource{Group: r.Group, Resource: r.Plural}]
}

// strategies are Options.Strategies by group and resource.
type strategies byResource[*Strategy]

// of returns the Strategy of r, nil for none.
func (ss strategies) of(r *schemas.Resource) *Strategy { return byResource[*Strategy](ss).of(r) }

// subresources returns the update-only subresources r's Strategy serves
// besides status and scale, sorted (nil for none).
func (ss strategies) subresources(r *schemas.Resource) []string {
	st := ss.of(r)
	if st == nil || len(st.Subresources) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(st.Subresources))
}

// statusMetadata reports whether r's Strategy lets a status write change
// the metadata.
func (ss strategies) statusMetadata(r *schemas.Resource) bool {
	st := ss.of(r)
	return st != nil && st.StatusMetadata
}

// serves reports whether r's Strategy declares subresource.
func (ss strategies) serves(r *schemas.Resource, subresource string) bool {
	st := ss.of(r)
	return st != nil && slices.Contains(st.Subresources, subresource)
}

// holds returns the finalizing storage's test of whether a stored value
// is held by its resource's Strategy, by key prefix under keys; nil when
// no Strategy holds objects.
func (ss strategies) holds(keys Keys) func(key string, value []byte) bool {
	type prefixed struct {
		prefix string
		holds  func([]byte) bool
	}
	var held []prefixed
	for gr, st := range ss {
		if st.Holds != nil {
			r := &schemas.Resource{Group: gr.Group, Plural: gr.Resource}
			held = append(held, prefixed{prefix: keys.Resource(r), holds: st.Holds})
		}
	}
	if len(held) == 0 {
		return nil
	}
	return func(key string, value []byte) bool {
		for _, h := range held {
			if len(key) > len(h.prefix) && key[:len(h.prefix)] == h.prefix {
				return h.holds(value)
			}
		}
		return false
	}
}

// prepareCreate runs r's PrepareCreate on req, and reads the metadata it
// may have changed again.
func (ss strategies) prepareCreate(r *schemas.Resource, req *request) error {
	st := ss.of(r)
	if st == nil || st.PrepareCreate == nil {
		return nil
	}
	st.PrepareCreate(req.obj)
	return req.rereadMeta()
}

// prepareUpdate runs r's PrepareUpdate on req against old.
func (ss strategies) prepareUpdate(r *schemas.Resource, req *request, old *stored, subresource string) error {
	st := ss.of(r)
	if st == nil || st.PrepareUpdate == nil {
		return nil
	}
	st.PrepareUpdate(req.obj, old.obj, subresource)
	return req.rereadMeta()
}

// rereadMeta decodes req.meta again from the metadata tree, after a
// Strategy edited it.
func (req *request) rereadMeta() error {
	if m, ok := req.obj["metadata"].(map[string]any); ok {
		req.metaMap = m
	}
	req.meta = metav1.ObjectMeta{}
	_, err := decodeObjectMeta(req.metaMap, &req.meta)
	return err
}
