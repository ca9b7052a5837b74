package namespace

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/schemas"
)

// The Namespace resource, as the registry names it.
const (
	Group  = corev1.GroupName // "", the core group
	Plural = "namespaces"
)

// FinalizeSubresource is the update-only subresource through which
// spec.finalizers changes (PUT /api/v1/namespaces/NAME/finalize).
const FinalizeSubresource = "finalize"

// System are the namespaces that exist from the first start, as
// kube-apiserver creates them.
var System = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}

// immortal are the namespaces kube-apiserver refuses to delete.
var immortal = map[string]bool{metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true}

// resource is how errors name namespaces: namespaces "foo" not found.
var resource = schema.GroupResource{Group: Group, Resource: Plural}

// Resource returns the storage version of the Namespace resource of reg;
// nil when reg does not serve it.
func Resource(reg *schemas.Registry) *schemas.ResourceVersion {
	return reg.ServedStorage(resource.String())
}
