package host

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/namespace"
)

// Namespaces are the host's namespaces, as an informer sees them.
type Namespaces struct {
	client   kubernetes.Interface
	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
	lister   corelisters.NamespaceLister
}

// New watches client's namespaces once Start is called.
func New(client kubernetes.Interface) *Namespaces {
	factory := informers.NewSharedInformerFactory(client, 0)
	ns := factory.Core().V1().Namespaces()
	return &Namespaces{client: client, factory: factory, informer: ns.Informer(), lister: ns.Lister()}
}

// Start runs the informer until ctx ends and waits up to timeout for it
// to hold every namespace.
func (n *Namespaces) Start(ctx context.Context, timeout time.Duration) error {
	n.factory.Start(ctx.Done())
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if !cache.WaitForCacheSync(wait.Done(), n.informer.HasSynced) {
		return fmt.Errorf("host namespaces: not listed within %v", timeout)
	}
	return nil
}

// Synced reports whether the informer holds every namespace.
func (n *Namespaces) Synced() bool { return n.informer.HasSynced() }

// CheckNamespace implements the engine's NamespaceCheck on the host's
// namespaces; specd's own Namespaces (objects) are not read.
func (n *Namespaces) CheckNamespace(ctx context.Context, _ engine.Reader, ref engine.Ref) error {
	ns := ref.Namespace
	obj, err := n.lister.Get(ns)
	if apierrors.IsNotFound(err) {
		obj, err = n.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
		return namespace.NotFound(ns)
	case err != nil:
		return apierrors.NewServiceUnavailable(fmt.Sprintf("cannot read namespace %q from the host cluster: %v", ns, err))
	case obj.Status.Phase == corev1.NamespaceTerminating:
		return namespace.Terminating(ref.Version.Resource, ns, ref.Name)
	}
	return nil
}

var _ engine.NamespaceCheck = (*Namespaces)(nil)
