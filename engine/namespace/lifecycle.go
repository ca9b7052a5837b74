package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/schemas"
)

// Config configures a Lifecycle.
type Config struct {
	// Registry returns the current registry.
	Registry func() *schemas.Registry
	Logger   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Lifecycle is the namespaces' part in every write: the check of the
// namespace of a create (CheckNamespace) and the Namespace's own write
// rules (Strategies), from a cache of every namespace that Run keeps.
type Lifecycle struct {
	cfg   Config
	log   *slog.Logger
	cache *cache
}

var _ engine.NamespaceCheck = (*Lifecycle)(nil)

// New returns a Lifecycle; until Run fills its cache, its checks read
// every namespace from storage.
func New(cfg Config) *Lifecycle {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Lifecycle{cfg: cfg, log: cfg.Logger.With("component", "namespaces"), cache: newCache(cfg.Now)}
}

// ensureTimeout bounds Start's creation of the System namespaces.
const ensureTimeout = 30 * time.Second

// Start keeps the cache up to date (Run) in the background until stop is
// called, and creates the System namespaces in store (EnsureSystem), as
// every replica does when it starts. Without a Namespace resource there
// is nothing to create.
func (l *Lifecycle) Start(ctx context.Context, store engine.Objects) (stop func(), err error) {
	stop = background.New(background.JobFunc(func(ctx context.Context) { l.Run(ctx, store) })).Start(ctx)
	ctx, cancel := context.WithTimeout(ctx, ensureTimeout)
	defer cancel()
	if _, err := EnsureSystem(ctx, store, l.cfg.Registry(), l.log); err != nil && !errors.Is(err, ErrNotServed) {
		stop()
		return nil, fmt.Errorf("create the namespaces: %w", err)
	}
	return stop, nil
}

// Run keeps the cache up to date with a watch of the namespaces in store
// until ctx ends.
func (l *Lifecycle) Run(ctx context.Context, store engine.Watcher) {
	informer.Run(ctx, informer.Config{
		Store:    store,
		Resource: func() *schemas.ResourceVersion { return Resource(l.cfg.Registry()) },
		Feed:     l.cache,
		Name:     resource.String(),
		Logger:   l.log,
	})
}

// AwaitDeleting returns once a namespace is marked for deletion (seen by
// Run's watch, or marked by this replica), or when ctx ends. The
// namespace controller campaigns for its election only then: campaigning
// writes to etcd, which a specd that deletes no namespace leaves alone
// (as the plugins' controllers await work), so what a fresh specd has
// written is settled once it is ready.
func (l *Lifecycle) AwaitDeleting(ctx context.Context) {
	select {
	case <-l.cache.deleting:
	case <-ctx.Done():
	}
}

// Synced reports whether the cache holds every namespace once (a
// readiness check: before, checks read storage more often).
func (l *Lifecycle) Synced() bool { return l.cache.synced.Load() }

// CheckNamespace is the engine's NamespaceCheck, kube-apiserver's
// NamespaceLifecycle admission for a create: a namespace that does not
// exist is a 404 naming it; one being terminated refuses new objects with
// a 403. The cache answers; a namespace it does not know (created a moment
// ago, its event not yet here) or that this replica just marked for
// deletion is read from objects, the Store that creates.
func (l *Lifecycle) CheckNamespace(ctx context.Context, objects engine.Reader, ref engine.Ref) error {
	phase, ok := l.cache.phase(ref.Namespace)
	// A Terminating phase is confirmed from storage: the namespace may
	// have gone and been made again since the cache heard of it, and a
	// refusal is rare enough to afford the read.
	if !ok || phase == corev1.NamespaceTerminating {
		var err error
		if phase, err = l.lookup(ctx, objects, ref.Namespace); err != nil {
			return err
		}
	}
	if phase == corev1.NamespaceTerminating {
		return terminating(ref.Version.Resource, ref.Namespace, ref.Name)
	}
	return nil
}

// lookup reads namespace's phase from objects. Without a Namespace
// resource (switched off), every namespace is Active.
func (l *Lifecycle) lookup(ctx context.Context, objects engine.Reader, namespace string) (corev1.NamespacePhase, error) {
	rv := Resource(l.cfg.Registry())
	if rv == nil {
		return corev1.NamespaceActive, nil
	}
	obj, err := objects.Get(ctx, engine.Ref{Version: rv, Name: namespace})
	if apierrors.IsNotFound(err) {
		return "", apierrors.NewNotFound(resource, namespace)
	}
	if err != nil {
		return "", fmt.Errorf("namespace: read %s: %w", namespace, err)
	}
	_, phase := namePhase(obj)
	return phase, nil
}

// Terminating is kube's refusal of a create of name, an object of r, in
// namespace, which is being terminated.
func Terminating(r *schemas.Resource, namespace, name string) error {
	return terminating(r, namespace, name)
}

// NotFound is kube's refusal of a create in namespace, which does not
// exist.
func NotFound(namespace string) error { return apierrors.NewNotFound(resource, namespace) }

// terminating is kube's refusal of a create in a Terminating namespace.
func terminating(r *schemas.Resource, namespace, name string) error {
	err := apierrors.NewForbidden(schema.GroupResource{Group: r.Group, Resource: r.Plural}, name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", namespace),
		Field:   "metadata.namespace",
	})
	return err
}
