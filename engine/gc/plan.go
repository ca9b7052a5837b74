package gc

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// ActionKind says what an Action does.
type ActionKind int

const (
	// Delete deletes the object with Policy.
	Delete ActionKind = iota + 1
	// RemoveOwnerReferences drops the object's references to UIDs.
	RemoveOwnerReferences
	// RemoveFinalizer drops Finalizer from the object.
	RemoveFinalizer
)

// Action is one write the collector decided.
type Action struct {
	Kind   ActionKind
	Object engine.StoredObject
	Policy metav1.DeletionPropagation // Delete
	// Unblock (Delete) first sets blockOwnerDeletion to false on every
	// ownerReference of the object: how Kubernetes' collector breaks a
	// cycle of blocking references (see planDependent).
	Unblock   bool
	UIDs      []string // RemoveOwnerReferences
	Finalizer string   // RemoveFinalizer
}

// KindLookup finds the resource of a group and kind; ok is false when
// specd does not serve it.
type KindLookup func(group, kind string) (r *schemas.Resource, ok bool)

// WithoutGroups is kinds, but for the kinds of groups, which it does not
// know.
func WithoutGroups(kinds KindLookup, groups []string) KindLookup {
	if len(groups) == 0 {
		return kinds
	}
	return func(group, kind string) (*schemas.Resource, bool) {
		if slices.Contains(groups, group) {
			return nil, false
		}
		return kinds(group, kind)
	}
}

// RegistryKinds is the KindLookup of a registry snapshot.
func RegistryKinds(reg *schemas.Registry) KindLookup {
	return func(group, kind string) (*schemas.Resource, bool) {
		g := reg.Group(group)
		if g == nil {
			return nil, false
		}
		for _, r := range g.Resources {
			if r.Kind == kind {
				return r, true
			}
		}
		return nil, false
	}
}

// graph is one snapshot of every object, indexed for the decisions.
type graph struct {
	byIdentity map[identity]*engine.StoredObject
	dependents map[string][]*engine.StoredObject // by owner uid
	kinds      KindLookup
}

type identity struct{ group, kind, namespace, name string }

func newGraph(objs []engine.StoredObject, kinds KindLookup) *graph {
	g := &graph{byIdentity: make(map[identity]*engine.StoredObject, len(objs)),
		dependents: map[string][]*engine.StoredObject{}, kinds: kinds}
	for i := range objs {
		o := &objs[i]
		g.byIdentity[identity{o.Resource.Group, o.Resource.Kind, o.Namespace, o.Name}] = o
		for _, ref := range o.OwnerReferences {
			g.dependents[string(ref.UID)] = append(g.dependents[string(ref.UID)], o)
		}
	}
	return g
}

// Plan decides the writes that move a snapshot of objects toward what
// Kubernetes' garbage collector leaves: the actions of one pass. Objects
// are never deleted while an owner exists, nor when an owner's kind is
// unknown.
func Plan(objs []engine.StoredObject, kinds KindLookup) []Action {
	g := newGraph(objs, kinds)
	var actions []Action
	for i := range objs {
		o := &objs[i]
		if o.Deleting {
			actions = append(actions, g.planOwner(o)...)
			continue
		}
		if len(o.OwnerReferences) > 0 {
			if a, ok := g.planDependent(o); ok {
				actions = append(actions, a)
			}
		}
	}
	return actions
}

// planOwner handles a terminating object's propagation finalizers.
func (g *graph) planOwner(o *engine.StoredObject) []Action {
	deps := g.dependentsOf(o)
	switch {
	case slices.Contains(o.Finalizers, engine.FinalizerOrphan):
		if len(deps) == 0 {
			return []Action{{Kind: RemoveFinalizer, Object: *o, Finalizer: engine.FinalizerOrphan}}
		}
		actions := make([]Action, 0, len(deps))
		for _, d := range deps {
			actions = append(actions, Action{Kind: RemoveOwnerReferences, Object: *d, UIDs: []string{o.UID}})
		}
		return actions
	case slices.Contains(o.Finalizers, engine.FinalizerForeground):
		for _, d := range deps {
			if blocks(d, o.UID) {
				return nil // the dependent's own decision deletes it first
			}
		}
		return []Action{{Kind: RemoveFinalizer, Object: *o, Finalizer: engine.FinalizerForeground}}
	}
	return nil
}

// dependentsOf are the objects whose references resolve to o.
func (g *graph) dependentsOf(o *engine.StoredObject) []*engine.StoredObject {
	var out []*engine.StoredObject
	for _, d := range g.dependents[o.UID] {
		for _, ref := range d.OwnerReferences {
			if string(ref.UID) == o.UID && g.owner(d, ref) == o {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// blocks reports whether d's reference to uid has blockOwnerDeletion.
func blocks(d *engine.StoredObject, uid string) bool {
	for _, ref := range d.OwnerReferences {
		if string(ref.UID) == uid && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// ownerState classifies one ownerReference, as Kubernetes' collector does.
type ownerState int

const (
	solid    ownerState = iota // the owner exists (or its kind is unknown)
	dangling                   // no such owner
	waiting                    // the owner waits for its dependents (foreground)
)

// owner resolves ref of dependent d: the object with its group, kind,
// name and uid, in d's namespace for a namespaced kind. It returns nil
// when there is none, and unknownOwner when the kind is not served.
func (g *graph) owner(d *engine.StoredObject, ref metav1.OwnerReference) *engine.StoredObject {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return unknownOwner
	}
	r, ok := g.kinds(gv.Group, ref.Kind)
	if !ok {
		return unknownOwner
	}
	ns := ""
	if r.Namespaced() {
		ns = d.Namespace // a cluster-scoped dependent cannot have a namespaced owner
	}
	o := g.byIdentity[identity{r.Group, r.Kind, ns, ref.Name}]
	if o == nil || o.UID != string(ref.UID) || (r.Namespaced() && d.Namespace == "") {
		return nil
	}
	return o
}

// unknownOwner stands for an owner of a kind specd does not serve: it is
// treated as existing.
var unknownOwner = &engine.StoredObject{}

func (g *graph) classify(d *engine.StoredObject, ref metav1.OwnerReference) ownerState {
	o := g.owner(d, ref)
	switch {
	case o == nil:
		return dangling
	case o != unknownOwner && deletingDependents(o):
		return waiting
	default:
		return solid
	}
}

// planDependent decides for an object with ownerReferences: nothing while
// an owner is solid (but references to gone or foreground-deleting owners
// are dropped), else its deletion.
//
// An object whose owner waits for its dependents (foreground) and that has
// dependents itself is deleted in the foreground too. When one of those
// dependents is already deleting in the foreground, the references may
// form a cycle (a owns b owns a) in which each would wait for the other
// forever; so, as Kubernetes' collector does, the object's references are
// first made non-blocking. Like Kubernetes' check, this one looks one
// step ahead only and also fires for some objects in no cycle: their
// owners then go before them instead of after; they are deleted all the
// same.
func (g *graph) planDependent(d *engine.StoredObject) (Action, bool) {
	var nSolid, nWaiting int
	var drop []string
	for _, ref := range d.OwnerReferences {
		switch g.classify(d, ref) {
		case solid:
			nSolid++
		case waiting:
			nWaiting++
			drop = append(drop, string(ref.UID))
		case dangling:
			drop = append(drop, string(ref.UID))
		}
	}
	switch {
	case nSolid > 0:
		if len(drop) == 0 {
			return Action{}, false
		}
		return Action{Kind: RemoveOwnerReferences, Object: *d, UIDs: drop}, true
	case nWaiting > 0 && len(g.dependentsOf(d)) > 0:
		a := Action{Kind: Delete, Object: *d, Policy: metav1.DeletePropagationForeground}
		a.Unblock = hasBlockingReference(d) && slices.ContainsFunc(g.dependentsOf(d), deletingDependents)
		return a, true
	default:
		return Action{Kind: Delete, Object: *d, Policy: ownPolicy(d)}, true
	}
}

// ownPolicy is the policy an object's own finalizers ask for.
func ownPolicy(d *engine.StoredObject) metav1.DeletionPropagation {
	switch {
	case slices.Contains(d.Finalizers, engine.FinalizerOrphan):
		return metav1.DeletePropagationOrphan
	case slices.Contains(d.Finalizers, engine.FinalizerForeground):
		return metav1.DeletePropagationForeground
	default:
		return metav1.DeletePropagationBackground
	}
}

// deletingDependents reports whether o waits for its dependents: it is
// terminating with the foregroundDeletion finalizer.
func deletingDependents(o *engine.StoredObject) bool {
	return o.Deleting && slices.Contains(o.Finalizers, engine.FinalizerForeground)
}

// hasBlockingReference reports whether one of o's references has
// blockOwnerDeletion.
func hasBlockingReference(o *engine.StoredObject) bool {
	for _, ref := range o.OwnerReferences {
		if ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true
		}
	}
	return false
}
