package gc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

var (
	widgets    = &schemas.Resource{Group: "shop.example.com", Kind: "Widget", Plural: "widgets", Scope: schemas.Namespaced}
	warehouses = &schemas.Resource{Group: "shop.example.com", Kind: "Warehouse", Plural: "warehouses", Scope: schemas.Cluster}
	books      = &schemas.Resource{Group: "library.example.com", Kind: "Book", Plural: "books", Scope: schemas.Namespaced}
)

func kinds(group, kind string) (*schemas.Resource, bool) {
	for _, r := range []*schemas.Resource{widgets, warehouses, books} {
		if r.Group == group && r.Kind == kind {
			return r, true
		}
	}
	return nil, false
}

// obj builds an object: "widgets ns/name uid" plus options.
func obj(r *schemas.Resource, ns, name string, opts ...func(*engine.StoredObject)) engine.StoredObject {
	o := engine.StoredObject{Resource: r, Namespace: ns, Name: name, UID: "uid-" + name, Revision: 1}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func ownedBy(r *schemas.Resource, name string, block bool) func(*engine.StoredObject) {
	return ownedByUID(r, name, "uid-"+name, block)
}

func ownedByUID(r *schemas.Resource, name, uid string, block bool) func(*engine.StoredObject) {
	return func(o *engine.StoredObject) {
		ref := metav1.OwnerReference{APIVersion: r.Group + "/v1", Kind: r.Kind, Name: name, UID: types.UID(uid)}
		if block {
			ref.BlockOwnerDeletion = &block
		}
		o.OwnerReferences = append(o.OwnerReferences, ref)
	}
}

func ownedByRef(ref metav1.OwnerReference) func(*engine.StoredObject) {
	return func(o *engine.StoredObject) { o.OwnerReferences = append(o.OwnerReferences, ref) }
}

func deleting(finalizers ...string) func(*engine.StoredObject) {
	return func(o *engine.StoredObject) { o.Deleting, o.Finalizers = true, finalizers }
}

func finalizers(f ...string) func(*engine.StoredObject) {
	return func(o *engine.StoredObject) { o.Finalizers = f }
}

// describe writes actions as "delete(Background) book", "unref(uid-a) b",
// "unfinalize(orphan) a".
func describe(actions []Action) string {
	out := make([]string, 0, len(actions))
	for _, a := range actions {
		switch a.Kind {
		case Delete:
			policy := string(a.Policy)
			if a.Unblock {
				policy += ",unblock"
			}
			out = append(out, fmt.Sprintf("delete(%s) %s", policy, a.Object.Name))
		case RemoveOwnerReferences:
			out = append(out, fmt.Sprintf("unref(%s) %s", strings.Join(a.UIDs, ","), a.Object.Name))
		case RemoveFinalizer:
			out = append(out, fmt.Sprintf("unfinalize(%s) %s", a.Finalizer, a.Object.Name))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func TestPlan(t *testing.T) {
	tests := map[string]struct {
		objs []engine.StoredObject
		want string
	}{
		"no owners": {
			objs: []engine.StoredObject{obj(widgets, "a", "w"), obj(books, "a", "b")},
		},
		"owner exists": {
			objs: []engine.StoredObject{obj(widgets, "a", "w"), obj(books, "a", "b", ownedBy(widgets, "w", false))},
		},
		"owner gone": {
			objs: []engine.StoredObject{obj(books, "a", "b", ownedBy(widgets, "w", false))},
			want: "delete(Background) b",
		},
		"owner recreated with another uid": {
			objs: []engine.StoredObject{obj(widgets, "a", "w"), obj(books, "a", "b", ownedByUID(widgets, "w", "old", false))},
			want: "delete(Background) b",
		},
		"owner in another namespace is not the owner": {
			objs: []engine.StoredObject{obj(widgets, "x", "w"), obj(books, "a", "b", ownedBy(widgets, "w", false))},
			want: "delete(Background) b",
		},
		"cluster-scoped owner of a namespaced dependent": {
			objs: []engine.StoredObject{obj(warehouses, "", "h"), obj(books, "a", "b", ownedBy(warehouses, "h", false))},
		},
		"cluster-scoped dependent of a namespaced owner is dangling": {
			objs: []engine.StoredObject{obj(widgets, "a", "w"), obj(warehouses, "", "h", ownedBy(widgets, "w", false))},
			want: "delete(Background) h",
		},
		"unknown owner kind is kept": {
			objs: []engine.StoredObject{obj(books, "a", "b", ownedByRef(metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}))},
		},
		"bad owner apiVersion is kept": {
			objs: []engine.StoredObject{obj(books, "a", "b", ownedByRef(metav1.OwnerReference{APIVersion: "a/b/c", Kind: "Widget", Name: "w", UID: "u"}))},
		},
		"one owner of two gone": {
			objs: []engine.StoredObject{obj(widgets, "a", "w1"), obj(books, "a", "b", ownedBy(widgets, "w1", false), ownedBy(widgets, "w2", false))},
			want: "unref(uid-w2) b",
		},
		"both owners gone": {
			objs: []engine.StoredObject{obj(books, "a", "b", ownedBy(widgets, "w1", false), ownedBy(widgets, "w2", false))},
			want: "delete(Background) b",
		},
		"a dependent's own orphan finalizer is honoured": {
			objs: []engine.StoredObject{obj(books, "a", "b", ownedBy(widgets, "w", false), finalizers("orphan"))},
			want: "delete(Orphan) b",
		},
		"orphan: dependents lose their references": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("orphan")),
				obj(books, "a", "b1", ownedBy(widgets, "w", true)), obj(books, "a", "b2", ownedBy(widgets, "w", false))},
			want: "unref(uid-w) b1; unref(uid-w) b2",
		},
		"orphan without dependents: the finalizer goes": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("orphan", "x.io/y"))},
			want: "unfinalize(orphan) w",
		},
		"foreground: dependents go first": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion")),
				obj(books, "a", "b1", ownedBy(widgets, "w", true)), obj(books, "a", "b2", ownedBy(widgets, "w", false))},
			want: "delete(Background) b1; delete(Background) b2",
		},
		"foreground: only non-blocking dependents left": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion")),
				obj(books, "a", "b2", ownedBy(widgets, "w", false))},
			want: "delete(Background) b2; unfinalize(foregroundDeletion) w",
		},
		"foreground: a terminating blocking dependent still blocks": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion")),
				obj(books, "a", "b1", ownedBy(widgets, "w", true), deleting("x.io/hold"))},
		},
		"foreground: no dependents left": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"))},
			want: "unfinalize(foregroundDeletion) w",
		},
		"foreground cascades through a dependent with dependents": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion")),
				obj(books, "a", "b", ownedBy(widgets, "w", true)), obj(widgets, "a", "w2", ownedBy(books, "b", true))},
			want: "delete(Foreground) b",
		},
		"foreground owner and a solid second owner: the reference goes": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion")), obj(widgets, "a", "keep"),
				obj(books, "a", "b", ownedBy(widgets, "w", true), ownedBy(widgets, "keep", false))},
			want: "unref(uid-w) b",
		},
		"cycle: the dependent of a foreground owner that owns it is unblocked": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(books, "b", true)),
				obj(books, "a", "b", ownedBy(widgets, "w", true))},
			want: "delete(Foreground,unblock) b",
		},
		"cycle of three, first step: no dependent waits yet": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(widgets, "w3", true)),
				obj(books, "a", "b", ownedBy(widgets, "w", true)), obj(widgets, "a", "w3", ownedBy(books, "b", true))},
			want: "delete(Foreground) b",
		},
		"cycle of three, second step: the last link is unblocked": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(widgets, "w3", true)),
				obj(books, "a", "b", ownedBy(widgets, "w", true), deleting("foregroundDeletion")),
				obj(widgets, "a", "w3", ownedBy(books, "b", true))},
			want: "delete(Foreground,unblock) w3",
		},
		"cycle of three, third step: the unblocked link lets its owner go": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(widgets, "w3", true)),
				obj(books, "a", "b", ownedBy(widgets, "w", true), deleting("foregroundDeletion")),
				obj(widgets, "a", "w3", ownedBy(books, "b", false), deleting("foregroundDeletion"))},
			want: "unfinalize(foregroundDeletion) b",
		},
		"cycle without blocking references: nothing to unblock": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(books, "b", false)),
				obj(books, "a", "b", ownedBy(widgets, "w", false))},
			want: "delete(Foreground) b; unfinalize(foregroundDeletion) w",
		},
		"both ends of a cycle deleted in the foreground wait, as in Kubernetes": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("foregroundDeletion"), ownedBy(books, "b", true)),
				obj(books, "a", "b", ownedBy(widgets, "w", true), deleting("foregroundDeletion"))},
		},
		"terminating owner without propagation finalizer: dependents stay": {
			objs: []engine.StoredObject{obj(widgets, "a", "w", deleting("x.io/hold")), obj(books, "a", "b", ownedBy(widgets, "w", false))},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := describe(Plan(tc.objs, kinds)); got != tc.want {
				t.Fatalf("plan\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}
