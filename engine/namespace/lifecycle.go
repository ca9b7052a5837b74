package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
)

// Store is what a Lifecycle reads: the watch that feeds its cache, and a
// Namespace read when the cache does not know one. *engine.Store
// satisfies it.
type Store interface {
	background.Watcher
	Get(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string) ([]byte, error)
}

var _ Store = (*engine.Store)(nil)

// Config configures a Lifecycle.
type Config struct {
	// Registry returns the current registry.
	Registry func() *schemas.Registry
	Logger   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Lifecycle is the namespaces' part in every write: the check of the
// namespace of a create (Check) and the Namespace's own write rules
// (Strategies), from a cache of every namespace that Run keeps.
type Lifecycle struct {
	cfg   Config
	log   *slog.Logger
	cache *cache
	// store is what Run was given: Check reads a namespace the cache does
	// not know from it.
	store atomic.Pointer[Store]
}

// New returns a Lifecycle; its checks refuse creates in namespaces until
// Run is given the store.
func New(cfg Config) *Lifecycle {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Lifecycle{cfg: cfg, log: cfg.Logger.With("component", "namespaces"), cache: newCache(cfg.Now)}
}

// Start gives the checks store at once and keeps the cache up to date
// (Run) in the background until stop is called.
func (l *Lifecycle) Start(ctx context.Context, store Store) (stop func()) {
	l.store.Store(&store)
	return background.New(background.JobFunc(func(ctx context.Context) { l.Run(ctx, store) })).Start(ctx)
}

// Run keeps the cache up to date with a watch of the namespaces in store
// until ctx ends. (The store is given here, not to New, so that the Store
// can be built with Check and Strategies.)
func (l *Lifecycle) Run(ctx context.Context, store Store) {
	l.store.Store(&store)
	background.Watch(ctx, background.WatchConfig{
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

// Check is the engine's NamespaceCheck, kube-apiserver's
// NamespaceLifecycle admission for a create: a namespace that does not
// exist is a 404 naming it; one being terminated refuses new objects with
// a 403. The cache answers; a namespace it does not know (created a moment
// ago, its event not yet here) or that this replica just marked for
// deletion is read from storage.
func (l *Lifecycle) Check(ctx context.Context, r *schemas.Resource, namespace, name string) error {
	phase, ok := l.cache.phase(namespace)
	// A Terminating phase is confirmed from storage: the namespace may
	// have gone and been made again since the cache heard of it, and a
	// refusal is rare enough to afford the read.
	if !ok || phase == corev1.NamespaceTerminating {
		var err error
		if phase, err = l.lookup(ctx, r, namespace, name); err != nil {
			return err
		}
	}
	if phase == corev1.NamespaceTerminating {
		return terminating(r, namespace, name)
	}
	return nil
}

var _ engine.NamespaceCheck = (*Lifecycle)(nil).Check

// lookup reads namespace's phase from storage. Without a Namespace
// resource (switched off), every namespace is Active.
func (l *Lifecycle) lookup(ctx context.Context, r *schemas.Resource, namespace, name string) (corev1.NamespacePhase, error) {
	rv := Resource(l.cfg.Registry())
	if rv == nil {
		return corev1.NamespaceActive, nil
	}
	store := l.store.Load()
	if store == nil {
		return "", apierrors.NewForbidden(schema.GroupResource{Group: r.Group, Resource: r.Plural}, name,
			errors.New("not yet ready to handle request"))
	}
	obj, err := (*store).Get(ctx, rv, "", namespace)
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
