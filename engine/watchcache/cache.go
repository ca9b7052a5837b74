package watchcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// Cache is the watch cache of one resource: the keys under one prefix.
//
// It starts with a list at the revision its first use asks for, and
// watches storage from there: a watch from a revision read before the
// cache began gets every change after it, as from a cache that ran all
// along. When storage no longer has that revision (compacted), or not
// yet, the cache starts at the current one; the watch then gets 410
// Expired, or waits for its revision. A later watch from before the
// cache's start (a list started it) gets the events in between from
// storage, then the cache's (gap.go); 410 Expired only when storage has
// compacted its revision, or the window has dropped events after it, as
// kube-apiserver's would have.
type Cache struct {
	storage  storage.Storage
	resource string
	cfg      Config
	log      *slog.Logger
	// from is the revision the first list reads (0: the current one).
	from int64
	// lastUsed is when a request last took the cache or a watch of it
	// ended, in Unix nanoseconds: Caches stops it once idle.
	lastUsed atomic.Int64
	// progress asks storage how far the watch has got, for consistent
	// lists; nil when it cannot (progress.go).
	progress *progress

	// ready is closed when the first list is loaded.
	ready     chan struct{}
	readyOnce sync.Once
	// stopped is closed when the cache ends. One stopped before its
	// first list never becomes ready: its waiters must not wait for it.
	stopped chan struct{}

	mu      sync.RWMutex
	objects objects
	window  window
	rev     int64 // every change up to rev is applied
	// eventRev is the revision of the last event applied: the next one
	// may have it too, since etcd deletes every key of an expired lease
	// in one revision.
	eventRev int64
	watchers map[*watcher]struct{}
	closed   bool
	// changed is closed and replaced whenever rev moves.
	changed chan struct{}
}

func newCache(storage storage.Storage, resource string, cfg Config, from int64) *Cache {
	return &Cache{
		storage: storage, resource: resource, cfg: cfg, from: from,
		log:      cfg.Logger.With("resource", resource),
		ready:    make(chan struct{}),
		stopped:  make(chan struct{}),
		objects:  newObjects(),
		window:   newWindow(cfg.Window, cfg.WindowBytes),
		watchers: map[*watcher]struct{}{},
		changed:  make(chan struct{}),
	}
}

// run lists and watches until ctx ends, listing again when the watch
// cannot go on (its revision compacted) or storage cannot be listed.
func (c *Cache) run(ctx context.Context) {
	defer c.close()
	bookmarks := time.NewTicker(c.cfg.BookmarkInterval)
	defer bookmarks.Stop()
	from := c.from
	for ctx.Err() == nil {
		err := c.listAndWatch(ctx, from, bookmarks.C)
		if ctx.Err() != nil {
			return
		}
		select {
		case <-c.ready:
			// Its watchers are cut off: listing again at the current
			// revision loses nothing that the new ones ask for.
			from = 0
		default:
			// Not started yet (storage unreachable): the watch that
			// starts it still waits for its revision.
		}
		c.log.Warn("watch cache restarts", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryDelay):
		}
	}
}

func (c *Cache) listAndWatch(ctx context.Context, from int64, bookmarks <-chan time.Time) error {
	res, err := c.list(ctx, from)
	if err != nil {
		return err
	}
	c.reset(res)
	for {
		err := c.watch(ctx, c.Revision(), bookmarks)
		if ctx.Err() != nil || errors.Is(err, storage.ErrCompacted) {
			return err
		}
		// A watch that broke (an etcd member lost, a leader election)
		// goes on after the last revision the cache has: its watchers
		// miss nothing and are not cut off.
		c.log.Info("watch cache resumes its watch", "after", c.Revision(), "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryDelay):
		}
	}
}

// watch applies the changes after revision after until the watch ends.
func (c *Cache) watch(ctx context.Context, after int64, bookmarks <-chan time.Time) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := c.storage.Watch(wctx, c.resource, after)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return ctx.Err()
			}
			if ev.Err != nil {
				return ev.Err
			}
			c.apply(ev)
		case <-bookmarks:
			c.bookmark()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// list reads the objects at revision from, or at the current revision
// when from is 0, compacted, or ahead of storage (a watch from there
// waits for it).
func (c *Cache) list(ctx context.Context, from int64) (storage.ListResult, error) {
	if from == 0 {
		return c.storage.List(ctx, c.resource, storage.ListOptions{})
	}
	res, err := c.storage.List(ctx, c.resource, storage.ListOptions{Revision: from})
	if err == nil {
		return res, nil
	}
	cur, cerr := c.storage.List(ctx, c.resource, storage.ListOptions{})
	switch {
	case cerr != nil:
		return storage.ListResult{}, cerr
	case errors.Is(err, storage.ErrCompacted):
		c.log.Debug("watch cache starts at the current revision: the one asked for is compacted", "asked", from, "current", cur.Revision)
		return cur, nil
	case cur.Revision < from:
		return cur, nil
	}
	// from could be read: storage failed, try again.
	return storage.ListResult{}, err
}

// reset loads a fresh list. Watchers of the state before it are cut off:
// what changed in between is unknown.
func (c *Cache) reset(res storage.ListResult) {
	c.mu.Lock()
	c.objects.load(res.Items)
	c.window.reset(res.Revision)
	c.setRev(res.Revision)
	c.eventRev = 0
	for w := range c.watchers {
		c.drop(w)
	}
	c.mu.Unlock()
	c.readyOnce.Do(func() { close(c.ready) })
}

// apply adds one storage event and hands it to every watcher of its key.
func (c *Cache) apply(ev storage.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Type == storage.EventBookmark {
		if ev.Revision > c.rev {
			c.setRev(ev.Revision)
		}
		return
	}
	if ev.Revision < c.rev || ev.Revision == c.rev && ev.Revision != c.eventRev {
		return // already in the list the watch started after
	}
	c.eventRev = ev.Revision
	switch ev.Type {
	case storage.EventDeleted:
		if prev := c.objects.remove(ev.Key); prev != nil && ev.PrevValue == nil {
			ev.PrevValue = prev.value
		}
	default:
		prev := c.objects.put(&entry{key: ev.Key, value: ev.Value, rev: ev.Revision})
		if prev != nil && ev.PrevValue == nil {
			ev.PrevValue = prev.value
		}
	}
	ev.Encoded = &storage.Encodings{}
	e := &ev
	c.window.push(e)
	c.setRev(ev.Revision)
	for w := range c.watchers {
		if !w.wants(ev.Key) {
			continue
		}
		select {
		case w.ch <- e:
		default:
			c.log.Info("watcher cut off: too far behind", "buffer", cap(w.ch))
			c.drop(w)
		}
	}
}

// bookmark sends the current revision to the watchers that asked for
// bookmarks and have room for one.
func (c *Cache) bookmark() {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &storage.Event{Type: storage.EventBookmark, Revision: c.rev}
	for w := range c.watchers {
		if w.bookmarks {
			select {
			case w.ch <- e:
			default:
			}
		}
	}
}

func (c *Cache) setRev(rev int64) {
	c.rev = rev
	close(c.changed)
	c.changed = make(chan struct{})
}

// drop ends w; c.mu is held. The cache counts as used until then, so
// that a client watching again after its watch ended finds it running.
func (c *Cache) drop(w *watcher) {
	if _, ok := c.watchers[w]; ok {
		delete(c.watchers, w)
		close(w.ch)
		if w.ended != nil {
			close(w.ended)
		}
		c.touch()
	}
}

// touch marks the cache used now.
func (c *Cache) touch() { c.lastUsed.Store(time.Now().UnixNano()) }

// idleFor is how long, at now, the cache has been unused with no watch
// open on it.
func (c *Cache) idleFor(now time.Time) time.Duration {
	c.mu.RLock()
	watched := len(c.watchers) > 0
	c.mu.RUnlock()
	if watched {
		return 0
	}
	return now.Sub(time.Unix(0, c.lastUsed.Load()))
}

func (c *Cache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	close(c.stopped)
	for w := range c.watchers {
		c.drop(w)
	}
}

// errStopped: the cache was stopped (Stop, Restart, idle) while a
// request waited for it. The request's next try starts a new cache.
var errStopped = fmt.Errorf("watch cache stopped: %w", engine.ErrCacheBehind)

// waitReady waits for the first list. A cache stopped first answers
// errStopped.
func (c *Cache) waitReady(ctx context.Context) error {
	select {
	case <-c.ready:
		return nil
	case <-c.stopped:
		select {
		case <-c.ready:
			return nil
		default:
			return fmt.Errorf("watch cache %s: not ready: %w", c.resource, errStopped)
		}
	case <-ctx.Done():
		return fmt.Errorf("watch cache %s: not ready: %w: %w", c.resource, engine.ErrCacheBehind, ctx.Err())
	}
}

// Revision is the revision the cache has applied every change up to.
func (c *Cache) Revision() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.rev
}

// WaitRevision waits until the cache has applied rev, or ctx ends.
func (c *Cache) WaitRevision(ctx context.Context, rev int64) error {
	if err := c.waitReady(ctx); err != nil {
		return err
	}
	for {
		c.mu.RLock()
		cur, changed := c.rev, c.changed
		c.mu.RUnlock()
		if cur >= rev {
			return nil
		}
		select {
		case <-changed:
		case <-c.stopped:
			return fmt.Errorf("watch cache %s at %d, waited for %d: %w", c.resource, cur, rev, errStopped)
		case <-ctx.Done():
			return errors.Join(engine.ErrCacheBehind, ctx.Err())
		}
	}
}

// List returns the objects under opts.Prefix at the cache's revision. A
// consistent list first waits, asking storage for progress, until the
// cache has reached opts.MinRevision.
func (c *Cache) List(ctx context.Context, opts engine.CacheListOptions) (storage.ListResult, error) {
	if err := c.waitReady(ctx); err != nil {
		return storage.ListResult{}, err
	}
	if opts.Consistent {
		if err := c.waitFresh(ctx, opts.MinRevision); err != nil {
			return storage.ListResult{}, err
		}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if opts.MinRevision > c.rev {
		return storage.ListResult{}, fmt.Errorf("watch cache %s at %d, asked for %d: %w", c.resource, c.rev, opts.MinRevision, engine.ErrCacheBehind)
	}
	items, remaining := c.objects.list(opts.Prefix, opts.Limit)
	return storage.ListResult{Items: items, Revision: c.rev, More: remaining > 0, Remaining: remaining}, nil
}

// Watch starts a watch. One from a revision before the cache started
// reads what came in between from storage first (gap.go); one from before
// what the window still holds, once it has dropped events, is too old.
func (c *Cache) Watch(ctx context.Context, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	if err := c.waitReady(ctx); err != nil {
		return nil, err
	}
	w, err := c.add(opts)
	if err != nil {
		return nil, err
	}
	if w.gap != nil {
		if err := c.fillGap(ctx, w); err != nil {
			w.Stop()
			return nil, err
		}
	}
	return w, nil
}

// add registers a watcher that starts where opts asks.
func (c *Cache) add(opts engine.CacheWatchOptions) (*watcher, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &watcher{cache: c, prefix: opts.Prefix, key: opts.Key, bookmarks: opts.Bookmarks,
		ch: make(chan *storage.Event, c.cfg.WatcherBuffer)}
	if c.closed {
		close(w.ch)
		return w, nil
	}
	start := opts.AfterRevision
	switch {
	case opts.Initial || start == 0:
		start = c.rev
		if opts.Initial {
			w.initial, w.initialRev = c.objects.selected(opts.Prefix, opts.Key), c.rev
		}
	case start < c.window.oldest() && c.window.dropped():
		return nil, &engine.ExpiredError{Revision: start, Oldest: c.window.oldest()}
	case start < c.window.oldest():
		// The cache started after start: the window holds every event
		// since it started, storage those before.
		w.gap = &gap{from: start, until: c.window.oldest()}
		w.ended = make(chan struct{})
		w.backlog = c.window.since(start, w.wants)
	case start < c.rev:
		w.backlog = c.window.since(start, w.wants)
	default:
		w.skipTo = start // a revision the cache has not reached yet
	}
	c.watchers[w] = struct{}{}
	return w, nil
}

// waitFresh waits until the cache has applied rev, with progress requests
// to storage meanwhile, until ctx ends. Without them the cache is behind
// at once unless it is there already: the watch of a resource that does
// not change would not move.
func (c *Cache) waitFresh(ctx context.Context, rev int64) error {
	if c.Revision() >= rev {
		return nil
	}
	if c.progress == nil {
		return fmt.Errorf("watch cache %s: no progress requests: %w", c.resource, engine.ErrCacheBehind)
	}
	done, failed := c.progress.wait()
	defer done()
	for {
		c.mu.RLock()
		cur, changed := c.rev, c.changed
		c.mu.RUnlock()
		if cur >= rev {
			return nil
		}
		select {
		case <-changed:
		case <-failed:
			return fmt.Errorf("watch cache %s: progress requests refused: %w", c.resource, engine.ErrCacheBehind)
		case <-c.stopped:
			return fmt.Errorf("watch cache %s at %d, waited for %d: %w", c.resource, cur, rev, errStopped)
		case <-ctx.Done():
			return fmt.Errorf("watch cache %s at %d, waited for %d: %w", c.resource, cur, rev, errors.Join(engine.ErrCacheBehind, ctx.Err()))
		}
	}
}
