package gc

import (
	"context"
	"errors"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Options configure a Collector.
type Options struct {
	// Interval is the time between passes when nothing triggers one;
	// DefaultInterval when 0.
	Interval time.Duration
	// MaxPasses bounds the passes run back to back while they act;
	// DefaultMaxPasses when 0.
	MaxPasses int
	// MinGap is the least time between the end of one collection and the
	// start of the next, so a burst of triggers costs a few passes, not
	// one per write; DefaultMinGap when 0.
	MinGap time.Duration
	Logger *slog.Logger
	// Trigger is the Trigger a pass waits on besides Interval; New makes
	// one when nil.
	Trigger *Trigger
	// ForeignGroups are groups whose objects are another server's (a
	// host cluster's, when specd serves aggregated), even where specd
	// serves a group of that name itself: an owner in one is never taken
	// as gone, as one of a kind specd does not serve. The other server's
	// collector decides for those.
	ForeignGroups []string
}

const (
	DefaultInterval  = 30 * time.Second
	DefaultMaxPasses = 64
	DefaultMinGap    = 100 * time.Millisecond
)

// Collector collects garbage: see the package documentation.
type Collector struct {
	upkeep   *engine.Upkeep
	registry func() *schemas.Registry
	opts     Options
	log      *slog.Logger
	trigger  *Trigger
}

// New returns a Collector of the objects of store, for the resources of the
// current registry snapshot.
func New(upkeep *engine.Upkeep, registry func() *schemas.Registry, opts Options) *Collector {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.MaxPasses <= 0 {
		opts.MaxPasses = DefaultMaxPasses
	}
	if opts.MinGap <= 0 {
		opts.MinGap = DefaultMinGap
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Trigger == nil {
		opts.Trigger = NewTrigger()
	}
	return &Collector{upkeep: upkeep, registry: registry, opts: opts, log: opts.Logger, trigger: opts.Trigger}
}

// Trigger asks for a pass soon: Options.Trigger's Pull.
func (c *Collector) Trigger() { c.trigger.Pull() }

// Run collects until ctx ends: at once, on Trigger and every Interval.
func (c *Collector) Run(ctx context.Context) {
	ticker := time.NewTicker(c.opts.Interval)
	defer ticker.Stop()
	for {
		if _, err := c.Collect(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("garbage collection", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-c.trigger.c:
		case <-ticker.C:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.opts.MinGap):
		}
	}
}

// Collect runs passes until one has nothing to do (or MaxPasses), and
// returns how many writes they made.
func (c *Collector) Collect(ctx context.Context) (int, error) {
	total := 0
	for range c.opts.MaxPasses {
		n, err := c.Pass(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	return total, nil
}

// Pass reads one snapshot, plans and acts. It returns how many writes
// succeeded; writes that lost a race (the object moved or went) are
// skipped, the next pass decides again.
func (c *Collector) Pass(ctx context.Context) (int, error) {
	reg := c.registry()
	objs, err := c.snapshot(ctx, reg)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, a := range Plan(objs, WithoutGroups(RegistryKinds(reg), c.opts.ForeignGroups)) {
		err := c.act(ctx, a)
		switch {
		case err == nil:
			done++
		case lostRace(err):
			c.log.Debug("garbage collector: object moved", "object", a.Object.String(), "err", err)
		default:
			if ctx.Err() != nil {
				return done, ctx.Err()
			}
			c.log.Warn("garbage collector", "object", a.Object.String(), "err", err)
		}
	}
	return done, nil
}

// snapshot reads every object of every resource at one revision.
func (c *Collector) snapshot(ctx context.Context, reg *schemas.Registry) ([]engine.StoredObject, error) {
	var objs []engine.StoredObject
	var rev int64
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			if r.StoredWith != nil {
				continue // its objects are StoredWith's, read with it
			}
			if !r.Serves("delete") {
				// As kube's collector, which watches only deletable
				// resources: what cannot be deleted is not collected,
				// and status.specd.io's objects, kept in memory, are
				// not at etcd's revisions.
				continue
			}
			read, err := c.upkeep.ScanResource(ctx, r, rev, func(o engine.StoredObject) { objs = append(objs, o) })
			if err != nil {
				return nil, err
			}
			rev = read
		}
	}
	return objs, nil
}

func (c *Collector) act(ctx context.Context, a Action) error {
	c.log.Debug("garbage collector", "action", a.Kind, "object", a.Object.String(), "policy", a.Policy, "unblock", a.Unblock,
		"uids", a.UIDs, "finalizer", a.Finalizer)
	switch a.Kind {
	case Delete:
		o := a.Object
		if a.Unblock {
			var err error
			if o, err = c.upkeep.UnblockOwnerReferences(ctx, o); err != nil {
				return err
			}
		}
		return c.upkeep.DeleteStored(ctx, o, a.Policy)
	case RemoveOwnerReferences:
		return c.upkeep.RemoveOwnerReferences(ctx, a.Object, a.UIDs)
	case RemoveFinalizer:
		return c.upkeep.RemoveFinalizer(ctx, a.Object, a.Finalizer)
	}
	return nil
}

// lostRace reports an error of a write whose object moved or went.
func lostRace(err error) bool {
	return errors.Is(err, storage.ErrConflict) || errors.Is(err, storage.ErrKeyNotFound) ||
		apierrors.IsConflict(err) || apierrors.IsNotFound(err)
}
