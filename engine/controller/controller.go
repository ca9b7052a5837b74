package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// DefaultWorkers is how many objects of one resource are reconciled at
// once when Config.Workers is 0.
const DefaultWorkers = 2

// rewatchDelay is the pause before a failed watch is started again.
const rewatchDelay = time.Second

// Key names one object.
type Key struct{ Namespace, Name string }

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Config configures a Controller.
type Config struct {
	// Resource is the storage version of the reconciled resource, whose
	// Hooks name the plugin.
	Resource   *schemas.ResourceVersion
	Store      engine.Objects
	Reconciler hook.Reconciler
	// Workers reconcile different objects at once; DefaultWorkers when 0.
	Workers int
	Logger  *slog.Logger
	// RateLimiter spaces the retries of a key; client-go's controller
	// default (5ms doubling to 1000s per key, 10/s overall) when nil.
	RateLimiter workqueue.TypedRateLimiter[Key]
	// Now is the clock of condition transition times; time.Now when nil.
	Now func() time.Time
}

// Controller reconciles the objects of one resource.
type Controller struct {
	cfg     Config
	rv      *schemas.ResourceVersion
	plugin  string
	timeout time.Duration
	name    string // plural.group
	log     *slog.Logger
	queue   workqueue.TypedRateLimitingInterface[Key]

	mu        sync.Mutex
	kinds     bool   // the plugin's Kinds answer is known
	finalizer string // the finalizer it wants, "" for none
}

// New returns a Controller for cfg.Resource, whose Hooks must name a
// reconcile plugin.
func New(cfg Config) (*Controller, error) {
	rv := cfg.Resource
	if rv == nil || rv.Hooks == nil || rv.Hooks.Reconcile == "" {
		return nil, errors.New("controller: the resource binds no reconcile plugin")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[Key]()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	name := rv.Resource.GroupResource()
	c := &Controller{
		cfg: cfg, rv: rv, plugin: rv.Hooks.Reconcile, timeout: rv.Hooks.Timeout, name: name,
		log: cfg.Logger.With("controller", name, "plugin", rv.Hooks.Reconcile),
	}
	if c.timeout <= 0 {
		c.timeout = schemas.DefaultHookTimeout
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter,
		workqueue.TypedRateLimitingQueueConfig[Key]{Name: name, MetricsProvider: queueMetrics{}})
	return c, nil
}

// Run watches and reconciles until ctx ends, then waits for the
// reconciles under way. A Controller runs once.
func (c *Controller) Run(ctx context.Context) {
	c.log.Info("controller started", "workers", c.cfg.Workers)
	var wg sync.WaitGroup
	wg.Go(func() { c.watch(ctx) })
	for range c.cfg.Workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	c.log.Info("controller stopped")
}

// Enqueue asks for key to be reconciled.
func (c *Controller) Enqueue(key Key) { c.queue.Add(key) }

// watch queues every object that is added or changes.
func (c *Controller) watch(ctx context.Context) {
	watchEvents(ctx, c.cfg.Store, c.rv, c.log, func(ev engine.WatchEvent) {
		if ev.Type == storage.EventAdded || ev.Type == storage.EventModified {
			meta := gjson.GetBytes(ev.Object, "metadata")
			c.queue.Add(Key{Namespace: meta.Get("namespace").Str, Name: meta.Get("name").Str})
		}
		// A deleted object is gone: nothing to reconcile (deletion is
		// seen through the finalizer, while the object still exists).
	})
}

// watchEvents hands every object of rv, then every event, to handle
// until ctx ends (informer.Run).
func watchEvents(ctx context.Context, store engine.Watcher, rv *schemas.ResourceVersion, log *slog.Logger, handle func(engine.WatchEvent)) {
	informer.Run(ctx, informer.Config{
		Store:      store,
		Resource:   func() *schemas.ResourceVersion { return rv },
		Feed:       informer.FeedFunc(handle),
		Name:       rv.Resource.GroupResource(),
		Logger:     log,
		RetryDelay: rewatchDelay,
	})
}

// processNext reconciles one key; false when the queue is shut down.
func (c *Controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	start := time.Now()
	res, err := c.reconcile(ctx, key)
	outcome := outcomeSuccess
	switch {
	case ctx.Err() != nil:
		return true // stopping: the next leader starts over
	case err != nil:
		outcome = outcomeError
		c.log.Warn("reconcile failed; retrying with backoff", "object", key.String(),
			"retries", c.queue.NumRequeues(key), "err", err)
		c.queue.AddRateLimited(key)
	case res.Requeue:
		outcome = outcomeRequeue
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, res.RequeueAfter)
	default:
		c.queue.Forget(key)
	}
	observeReconcile(c.plugin, c.name, outcome, start)
	return true
}

// reconcile brings one object to what its plugin wants: finalizer, plugin
// call, status, finalizer removal.
func (c *Controller) reconcile(ctx context.Context, key Key) (hook.ReconcileResult, error) {
	obj, err := c.cfg.Store.Get(ctx, engine.Ref{Version: c.rv, Namespace: key.Namespace, Name: key.Name})
	if apierrors.IsNotFound(err) {
		return hook.ReconcileResult{}, nil // deleted since it was queued
	}
	if err != nil {
		return hook.ReconcileResult{}, fmt.Errorf("get: %w", err)
	}
	finalizer, err := c.wantedFinalizer(ctx)
	if err != nil {
		return hook.ReconcileResult{}, err
	}
	deleting := gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists()
	if finalizer != "" {
		has := hasFinalizer(obj, finalizer)
		switch {
		case deleting && !has:
			return hook.ReconcileResult{}, nil // cleaned up already; someone else holds it
		case !deleting && !has:
			if obj, err = c.addFinalizer(ctx, key, obj, finalizer); err != nil {
				return hook.ReconcileResult{}, err
			}
		}
	}
	res, err := c.callPlugin(ctx, key, obj)
	if err != nil {
		return hook.ReconcileResult{}, err
	}
	if res.Status != nil {
		if obj, err = c.writeStatus(ctx, key, obj, res.Status); err != nil {
			return hook.ReconcileResult{}, err
		}
	}
	if deleting && finalizer != "" && res.FinalizerDone {
		if err := c.removeFinalizer(ctx, key, obj, finalizer); err != nil {
			return hook.ReconcileResult{}, err
		}
	}
	return res, nil
}

// callPlugin calls the reconcile plugin within the binding's timeout.
func (c *Controller) callPlugin(ctx context.Context, key Key, obj []byte) (hook.ReconcileResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	r := c.rv.Resource
	res, err := c.cfg.Reconciler.Reconcile(ctx, c.plugin, hook.ReconcileRequest{
		Group: r.Group, Version: c.rv.Version, Kind: r.Kind, Resource: r.Plural,
		Namespace: key.Namespace, Name: key.Name, Object: obj,
	})
	if err != nil {
		return hook.ReconcileResult{}, fmt.Errorf("plugin %q: %w", c.plugin, err)
	}
	return res, nil
}

// wantedFinalizer asks the plugin once which finalizer it wants on the
// resource's objects.
func (c *Controller) wantedFinalizer(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kinds {
		return c.finalizer, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	kinds, err := c.cfg.Reconciler.Kinds(ctx, c.plugin)
	if err != nil {
		return "", fmt.Errorf("plugin %q: kinds: %w", c.plugin, err)
	}
	r := c.rv.Resource
	found := false
	for _, k := range kinds {
		if k.Group == r.Group && k.Kind == r.Kind {
			found = true
			if !k.Reconcile {
				c.log.Warn("the schema binds this plugin to reconcile a kind it does not say it reconciles", "kind", r.Kind)
			}
			c.finalizer = k.Finalizer
		}
	}
	if !found {
		c.log.Warn("the schema binds this plugin to reconcile a kind it does not list", "kind", r.Kind)
	}
	c.kinds = true
	return c.finalizer, nil
}
