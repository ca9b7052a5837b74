package gotypes

import (
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// scheme is built once, on first use, and only read after: registering
// generated types has no runtime input. Built at init it cost every run
// of the binary (specd version too) a few milliseconds; a start uses it
// only once a request needs it.
var scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	// meta.k8s.io's PartialObjectMetadata(List): what metadata clients
	// (kube's garbage collector) read of any kind.
	for _, add := range []func(*runtime.Scheme) error{rbacv1.AddToScheme, corev1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme,
		apiextensionsv1.AddToScheme, metav1.AddMetaToScheme} {
		if err := add(s); err != nil {
			panic(err) // registering generated types cannot fail
		}
	}
	return s
})

// Scheme returns the scheme of the built-in Go types. It is shared:
// callers read it and register nothing in it.
func Scheme() *runtime.Scheme { return scheme() }

// Has reports whether gvk is a kind with a Go type here.
func Has(gvk schema.GroupVersionKind) bool { return scheme().Recognizes(gvk) }

// PatchMeta is the strategic merge patch metadata of gvk, read from the
// struct tags of its Go type, as kube-apiserver reads them; false for a
// kind without one.
func PatchMeta(gvk schema.GroupVersionKind) (strategicpatch.LookupPatchMeta, bool) {
	obj, err := scheme().New(gvk)
	if err != nil {
		return nil, false
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(obj)
	if err != nil {
		return nil, false
	}
	return meta, true
}
