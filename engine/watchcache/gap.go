package watchcache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// gap is the start of a watch from a revision before its cache started:
// the events after from up to until, the revision the cache listed at. A
// list starts a cache at the current revision, yet a client may watch
// from an older one it read before (a get, its own write of another
// resource), which kube-apiserver's cache, running since the server
// started, would still hold. The window never held those events, so
// storage serves them, with a watch of its own from from; once it has
// passed until, the watcher goes on with the cache's events, which it was
// registered for before the gap began: none is missed or sent twice.
type gap struct {
	from, until int64
	events      <-chan storage.Event
	// passed: storage has sent every event up to until. Only the
	// watch's reader reads or sets it.
	passed bool

	once   sync.Once
	cancel context.CancelFunc // of the storage watch
	// unwait ends the wait for progress notifications.
	unwait func()
}

// fillGap starts w's gap: 410 Expired when storage no longer has its
// start, as when the cache cannot serve it either.
func (c *Cache) fillGap(ctx context.Context, w *watcher) error {
	g := w.gap
	prefix := w.prefix
	if w.key != "" {
		prefix = w.key
	}
	// A read at a compacted revision fails, where a watch from it would
	// fail only once running: this answers before the watch starts.
	if _, err := c.storage.List(ctx, prefix, storage.ListOptions{Revision: g.from, Limit: 1}); err != nil {
		if errors.Is(err, storage.ErrCompacted) {
			return &engine.ExpiredError{Revision: g.from, Oldest: g.until}
		}
		return fmt.Errorf("watch cache %s: read at %d: %w", c.resource, g.from, err)
	}
	gctx, cancel := context.WithCancel(ctx)
	g.cancel = cancel
	g.events = c.storage.Watch(gctx, prefix, g.from)
	if c.progress != nil {
		// Storage's progress notifications end the gap of a resource that
		// has not changed since its cache started: no later event comes
		// to show that the storage watch has passed until.
		g.unwait, _ = c.progress.wait()
	}
	return nil
}

// close ends the storage watch; safe to call more than once, from any
// goroutine.
func (g *gap) close() {
	g.once.Do(func() {
		if g.cancel != nil {
			g.cancel()
		}
		if g.unwait != nil {
			g.unwait()
		}
	})
}

// fromGap returns w's next event from storage; ok is false once storage
// has passed the cache's start, and the cache's events follow.
func (w *watcher) fromGap(ctx context.Context) (ev storage.Event, ok bool, err error) {
	g := w.gap
	for {
		select {
		case ev, open := <-g.events:
			switch {
			case !open || ev.Err != nil:
				// Compacted meanwhile, or storage lost: the client watches
				// again from its last event.
				g.close()
				return storage.Event{}, false, gapEnded(w.cache.resource, g.from, ev.Err)
			case ev.Type == storage.EventBookmark && ev.Revision < g.until:
			case ev.Type == storage.EventBookmark || ev.Revision > g.until:
				g.passed = true
				g.close()
				return storage.Event{}, false, nil
			case w.wants(ev.Key):
				return ev, true, nil
			}
		case <-w.ended:
			g.close()
			return storage.Event{}, false, engine.ErrWatchClosed
		case <-ctx.Done():
			return storage.Event{}, false, ctx.Err()
		}
	}
}

// gapEnded is the error of a gap whose storage watch ended early: an
// engine.ErrWatchClosed, with why when storage said.
func gapEnded(resource string, from int64, cause error) error {
	if cause == nil {
		return fmt.Errorf("watch cache %s: storage watch from %d closed: %w", resource, from, engine.ErrWatchClosed)
	}
	return fmt.Errorf("watch cache %s: storage watch from %d: %w: %w", resource, from, engine.ErrWatchClosed, cause)
}
