package crd

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// EstablishPoll is how often the Controller looks whether the registry
// serves a CRD whose names it accepted, to set Established.
const EstablishPoll = 5 * time.Millisecond

// Retry delays of a CRD whose objects remain, or whose writes fail.
const (
	retryFirst = 20 * time.Millisecond
	retryMost  = 5 * time.Second
)

// Controller is kube's naming, establishing and finalizer controllers for
// CRDs, on the elected replica.
type Controller struct {
	api   *API
	store engine.Objects
	log   *slog.Logger
	now   func() time.Time

	// written are the names the Controller accepted, until the watch
	// shows them (acceptedCache).
	mu      sync.Mutex
	written *acceptedCache
	// waiting is when the Controller began to wait for the objects of
	// a CRD being deleted to go, by CRD (deletionCheck).
	waiting map[string]time.Time
}

// NewController returns the Controller of a's CRDs.
func (a *API) NewController(store engine.Objects) *Controller {
	return &Controller{api: a, store: store, log: a.log.With("controller", "customresourcedefinitions"), now: time.Now,
		written: newAcceptedCache(), waiting: map[string]time.Time{}}
}

var _ background.Job = (*Controller)(nil)

// Elected is what the elected replica runs for the CRDs: once the Feed
// has seen a CRD (AwaitAny), the Controller of store's CRDs.
func (a *API) Elected(store engine.Objects) background.Job {
	c := a.NewController(store)
	return background.JobFunc(func(ctx context.Context) {
		if a.AwaitAny(ctx); ctx.Err() == nil {
			c.Run(ctx)
		}
	})
}

// Run works until ctx ends; it may run again (a replica that leads
// again), and then looks at every CRD anew.
func (c *Controller) Run(ctx context.Context) {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryFirst, retryMost)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "customresourcedefinitions"})
	var wg sync.WaitGroup
	wg.Go(func() {
		informer.Run(ctx, informer.Config{
			Store:    c.store,
			Resource: func() *schemas.ResourceVersion { return Resource(c.api.cfg.Registry()) },
			Feed:     enqueuer{c: c, queue: queue},
			Name:     Key,
			Logger:   c.log,
		})
	})
	// One worker, as kube's naming controller: names are decided one CRD
	// at a time.
	wg.Go(func() {
		for c.processNext(ctx, queue) {
		}
	})
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// enqueuer queues every CRD that changes, and on a delete the others of
// its group, whose names it may have freed.
type enqueuer struct {
	c     *Controller
	queue workqueue.TypedRateLimitingInterface[string]
}

func (e enqueuer) Replace(events []engine.WatchEvent) {
	for _, ev := range events {
		e.Apply(ev)
	}
}

func (e enqueuer) Apply(ev engine.WatchEvent) {
	name := gjson.GetBytes(ev.Object, "metadata.name").Str
	if ev.Type != storage.EventDeleted {
		e.queue.Add(name)
		return
	}
	e.c.forget(name)
	for other := range e.c.api.snapshot(gjson.GetBytes(ev.Object, "spec.group").Str) {
		if other != name {
			e.queue.Add(other)
		}
	}
}

// errAgain asks for the CRD to be looked at again soon.
var errAgain = errors.New("crd: not done yet")

func (c *Controller) processNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string]) bool {
	name, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(name)
	again, err := c.sync(ctx, name)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		c.log.Warn("CustomResourceDefinition sync failed; retrying", "name", name, "err", err)
		queue.AddRateLimited(name)
	case again > 0:
		queue.Forget(name)
		queue.AddAfter(name, again)
	default:
		queue.Forget(name)
	}
	return true
}

// sync does what one CRD needs next; again > 0 asks to look again then.
func (c *Controller) sync(ctx context.Context, name string) (again time.Duration, err error) {
	rv := Resource(c.api.cfg.Registry())
	if rv == nil {
		return 0, nil
	}
	data, err := c.store.Get(ctx, engine.Ref{Version: rv, Namespace: "", Name: name})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	o, err := decode(data)
	if err != nil {
		return 0, err
	}
	switch {
	case o.deleting():
		if !o.hasFinalizer() {
			return 0, nil
		}
		return 0, c.finalize(ctx, rv, o)
	case !sameNames(o.Spec.Names, o.Status.AcceptedNames):
		return EstablishPoll, c.name(ctx, rv, o)
	default:
		return c.establish(ctx, rv, o)
	}
}

func (c *Controller) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.written.forget(name)
	delete(c.waiting, name)
}
