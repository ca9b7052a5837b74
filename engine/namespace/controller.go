package namespace

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// DefaultWorkers is how many namespaces are emptied at once when
// ControllerConfig.Workers is 0.
const DefaultWorkers = 2

// Retry delays of a namespace whose content remains (held by finalizers,
// or failing): doubling from the first to the most, per namespace.
const (
	DefaultRetryFirst = 50 * time.Millisecond
	DefaultRetryMost  = 5 * time.Second
)

// FieldManager names the controller's writes in managedFields.
const FieldManager = "specd-namespace-controller"

// ControllerConfig configures a Controller.
type ControllerConfig struct {
	Store engine.Objects
	// Upkeep scans what remains in a namespace, and finds the namespaces
	// that hold objects (Elected).
	Upkeep *engine.Upkeep
	// Registry returns the current registry: each pass deletes the
	// objects of every namespaced resource it serves.
	Registry func() *schemas.Registry
	Workers  int
	Logger   *slog.Logger
	// RateLimiter spaces the passes over a namespace whose content
	// remains; DefaultRetryFirst doubling to DefaultRetryMost when nil.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Now is the clock of the conditions; time.Now when nil.
	Now func() time.Time
}

// Controller is kube's namespace controller: it empties every namespace
// marked for deletion and then finalizes it, which deletes it.
type Controller struct {
	cfg ControllerConfig
	log *slog.Logger
}

// NewController returns a Controller; Run runs it.
func NewController(cfg ControllerConfig) *Controller {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Controller{cfg: cfg, log: cfg.Logger.With("controller", "namespaces")}
}

var _ background.Job = (*Controller)(nil)

// Elected is what the elected replica runs for the namespaces: it adopts
// the namespaces that hold objects (Bootstrap, tried again while storage
// fails), then, once a namespace is marked for deletion (life's
// AwaitDeleting), runs c.
func (c *Controller) Elected(life *Lifecycle) background.Job {
	return background.JobFunc(func(ctx context.Context) {
		adopt(ctx, c.cfg.Store, c.cfg.Upkeep, c.cfg.Registry(), c.log)
		if life.AwaitDeleting(ctx); ctx.Err() == nil {
			c.Run(ctx)
		}
	})
}

// Run watches the namespaces and empties those marked for deletion until
// ctx ends, then waits for the passes under way. It may run again (a
// replica that leads again): every namespace is looked at anew.
func (c *Controller) Run(ctx context.Context) {
	limiter := c.cfg.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](DefaultRetryFirst, DefaultRetryMost)
	}
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "namespaces"})
	var wg sync.WaitGroup
	wg.Go(func() {
		informer.Run(ctx, informer.Config{
			Store:    c.cfg.Store,
			Resource: func() *schemas.ResourceVersion { return Resource(c.cfg.Registry()) },
			Feed:     informer.FeedFunc(func(ev engine.WatchEvent) { enqueueDeleting(queue, ev) }),
			Name:     resource.String(),
			Logger:   c.log,
		})
	})
	for range c.cfg.Workers {
		wg.Go(func() {
			for c.processNext(ctx, queue) {
			}
		})
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// enqueueDeleting queues a namespace marked for deletion.
func enqueueDeleting(queue workqueue.TypedRateLimitingInterface[string], ev engine.WatchEvent) {
	if ev.Type == storage.EventDeleted {
		return
	}
	md := gjson.GetBytes(ev.Object, "metadata")
	if md.Get("deletionTimestamp").Exists() {
		queue.Add(md.Get("name").Str)
	}
}

// processNext runs one pass over a namespace; false once the queue is
// shut down.
func (c *Controller) processNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string]) bool {
	name, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(name)
	err := c.sync(ctx, name)
	var remaining *ContentRemainingError
	switch {
	case ctx.Err() != nil:
		// Stopping: the next leader starts over.
	case errors.As(err, &remaining):
		c.log.Debug("content remains; looking again", "namespace", name, "remaining", remaining.Count)
		queue.AddRateLimited(name)
	case err != nil:
		c.log.Warn("namespace deletion failed; retrying", "namespace", name, "err", err)
		queue.AddRateLimited(name)
	default:
		queue.Forget(name)
	}
	return true
}
