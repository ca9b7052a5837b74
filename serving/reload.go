package serving

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// Follower is a part of specd that keeps state per resource and must
// follow a swap. Discovery, OpenAPI, routes, hook bindings and conversion
// need not: they are derived from the registry a request holds.
type Follower interface {
	// BeforeSwap is called, one reload at a time, before next is served;
	// an error fails the reload and old stays served.
	BeforeSwap(ctx context.Context, old, next *schemas.Registry) error
	// AfterSwap is called after next is served.
	AfterSwap(ctx context.Context, old, next *schemas.Registry)
}

// Reloads serves the reloads of a Set, from Serve until Stop.
type Reloads struct {
	set *Set
	// stored tells the gate in which versions the objects of a resource
	// are stored, so that a version may go once none is stored in it;
	// without it, removing the storage version is refused.
	stored    check.StoredObjects
	followers []Follower

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Serve reloads when the schema directory changes (with Config.Watch)
// and on each of Config.ReloadSignals, until ctx ends or Stop is called.
// The gate reads from stored (nil: nothing to ask) in which versions
// objects are stored, and each reload is followed by followers, in order;
// a follower is not told that the BeforeSwap of a later one failed.
func (s *Set) Serve(ctx context.Context, stored check.StoredObjects, followers ...Follower) *Reloads {
	ctx, cancel := context.WithCancel(ctx)
	r := &Reloads{set: s, stored: stored, followers: followers, cancel: cancel}
	if s.watchErr != nil {
		// SIGHUP still reloads.
		s.log.Error("cannot watch the schema directory; reload with SIGHUP", "dir", s.cfg.Dir, "err", s.watchErr)
	}
	if s.watcher != nil {
		r.wg.Go(func() { s.watcher.Run(ctx, func() { _ = r.Reload(ctx, "change") }) })
	}
	r.wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.cfg.ReloadSignals:
				_ = r.Reload(ctx, "SIGHUP")
			}
		}
	})
	return r
}

// Stop stops serving reloads; it waits for a reload under way.
func (r *Reloads) Stop() {
	r.cancel()
	r.wg.Wait()
}

// Reload loads the schema directory again and, if it loads and passes
// the gate, serves it. Otherwise the served world stays, and the error is
// kept for ReadyCheck and the metrics until a reload succeeds.
func (r *Reloads) Reload(ctx context.Context, trigger string) error {
	s := r.set
	s.mu.Lock()
	defer s.mu.Unlock()
	return r.reload(ctx, trigger)
}

// reload is Reload, under s.mu.
func (r *Reloads) reload(ctx context.Context, trigger string) error {
	s := r.set
	start := time.Now()
	served := s.current.Load()
	next, err := s.build(ctx, served)
	if err == nil && next != served {
		err = s.gate(ctx, served, next, r.stored)
	}
	if err == nil && next != served {
		err = r.beforeSwap(ctx, served, next)
	}
	took := time.Since(start)
	if err != nil {
		s.status.failed(time.Now(), trigger, err)
		observeReload(resultOf(err), took)
		s.log.Error("schema reload failed; serving the previous schemas", "trigger", trigger, "err", err)
		return err
	}
	if next == served {
		s.status.succeeded(Outcome{At: time.Now(), Trigger: trigger, Result: "unchanged"})
		observeReload("unchanged", took)
		s.log.Debug("schemas unchanged", "trigger", trigger)
		return nil
	}
	s.swap(served, next)
	r.afterSwap(ctx, served, next)
	added, changed, removed := diffResources(served.reg, next.reg)
	s.status.succeeded(Outcome{At: time.Now(), Trigger: trigger, Result: "applied", Added: added, Changed: changed, Removed: removed})
	observeReload("applied", time.Since(start))
	s.log.Info("schemas reloaded", "trigger", trigger, "took", time.Since(start).Round(time.Millisecond),
		"added", added, "changed", changed, "removed", removed)
	return nil
}

func (r *Reloads) beforeSwap(ctx context.Context, old, next *world) error {
	for _, f := range r.followers {
		if err := f.BeforeSwap(ctx, old.reg, next.reg); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reloads) afterSwap(ctx context.Context, old, next *world) {
	for _, f := range r.followers {
		f.AfterSwap(ctx, old.reg, next.reg)
	}
}

// swap serves next: from the Store on, every new request sees it.
func (s *Set) swap(old, next *world) {
	retired := []*world{old}
	if prev := s.retired.Load(); prev != nil {
		retired = append(retired, (*prev)[:min(len(*prev), retainedWorlds-1)]...)
	}
	// Retire old before next is served, so that ConverterFor finds every
	// resource a request may hold at any moment.
	s.retired.Store(&retired)
	s.current.Store(next)
}

// diffResources names the resources next adds, changes and removes: of
// those the reload changed (schemas.EachChanged), not of every one.
func diffResources(old, next *schemas.Registry) (added, changed, removed []string) {
	schemas.EachChanged(old, next, func(ores, res *schemas.Resource) {
		switch {
		case ores == nil:
			added = append(added, res.GroupResource())
		case res == nil:
			removed = append(removed, ores.GroupResource())
		case !schemas.SameDeclaration(ores, res):
			changed = append(changed, res.GroupResource())
		}
	})
	slices.Sort(added)
	slices.Sort(changed)
	slices.Sort(removed)
	return added, changed, removed
}

// ErrRefused marks (errors.Is) a reload the compatibility gate refused.
var ErrRefused = errors.New("schema change refused")

func resultOf(err error) string {
	if errors.Is(err, ErrRefused) {
		return "refused"
	}
	return "failed"
}
