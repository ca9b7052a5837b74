package watchcache

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// Config tunes the caches.
type Config struct {
	// Window is how many recent events each resource keeps for watches
	// from a past revision; DefaultWindow when 0.
	Window int
	// WindowBytes bounds the bytes of the values (and previous values) of
	// the events a resource keeps; DefaultWindowBytes when 0.
	WindowBytes int
	// WatcherBuffer is how many events a watcher may fall behind before it
	// is cut off; DefaultWatcherBuffer when 0.
	WatcherBuffer int
	// BookmarkInterval is how often watchers that asked for bookmarks get
	// one; DefaultBookmarkInterval when 0.
	BookmarkInterval time.Duration
	// IdleTimeout is how long a cache keeps running once no watch is open
	// on it and no request has used it; DefaultIdleTimeout when 0, for
	// ever when negative. A stopped cache starts again on its next use.
	IdleTimeout time.Duration
	// Logger gets a line when a cache restarts or cuts a watcher off.
	Logger *slog.Logger
}

const (
	DefaultWindow           = 1000
	DefaultWindowBytes      = 8 << 20
	DefaultWatcherBuffer    = 1000
	DefaultBookmarkInterval = time.Minute
	DefaultIdleTimeout      = 10 * time.Minute
	// retryDelay is the pause before a cache whose watch failed lists again.
	retryDelay = 100 * time.Millisecond
)

// Caches is the watch cache of every resource. A cache starts on the
// first use of its resource, at the revision that use asks for (see
// Cache), and stops after IdleTimeout unused.
type Caches struct {
	storage storage.Storage
	cfg     Config
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu     sync.Mutex
	caches map[string]*Cache
	stops  map[string]context.CancelFunc // of each cache's run
	// resume is where the cache a Restart ended had got to: its next
	// cache starts there, whatever use starts it, so that the watches
	// Restart ended can go on from their last event without a 410.
	resume map[string]resumePoint
	// progress is shared by every cache: nil when storage cannot ask for
	// progress (progress.go).
	progress *progress
}

var _ engine.Cache = (*Caches)(nil)

// New returns the caches of the resources in storage. Close stops them.
func New(storage storage.Storage, cfg Config) *Caches {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.WindowBytes <= 0 {
		cfg.WindowBytes = DefaultWindowBytes
	}
	if cfg.WatcherBuffer <= 0 {
		cfg.WatcherBuffer = DefaultWatcherBuffer
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cs := &Caches{storage: storage, cfg: cfg, ctx: ctx, cancel: cancel,
		caches: map[string]*Cache{}, stops: map[string]context.CancelFunc{}, resume: map[string]resumePoint{},
		progress: newProgress(ctx, storage, cfg.Logger)}
	if cfg.IdleTimeout > 0 {
		cs.wg.Go(cs.stopIdle)
	}
	return cs
}

// For returns the cache of the keys under resource, starting it at
// storage's current revision if it is not running.
func (cs *Caches) For(resource string) *Cache { return cs.get(resource, 0) }

// get returns the cache of resource, marked used now. A cache that is not
// running starts with a list at revision from (0: the current one), so
// that a watch from there misses nothing.
func (cs *Caches) get(resource string, from int64) *Cache {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.caches[resource]
	if c == nil {
		if r, ok := cs.resume[resource]; ok && time.Since(r.at) < resumeFor && (from == 0 || r.rev < from) {
			from = r.rev
		}
		delete(cs.resume, resource)
		c = newCache(cs.storage, resource, cs.cfg, from)
		c.progress = cs.progress
		cs.caches[resource] = c
		ctx, stop := context.WithCancel(cs.ctx)
		cs.stops[resource] = stop
		runningCaches.Inc()
		cs.wg.Go(func() {
			defer runningCaches.Dec()
			c.run(ctx)
		})
	}
	c.touch()
	return c
}

// List implements engine.Cache. A cache that is not running starts at
// storage's current revision: a list never needs an older one.
func (cs *Caches) List(ctx context.Context, resource string, opts engine.CacheListOptions) (storage.ListResult, error) {
	return retryStopped(cs, func() (storage.ListResult, error) { return cs.get(resource, 0).List(ctx, opts) })
}

// Watch implements engine.Cache. A cache that is not running starts at
// opts.AfterRevision, so that the watch gets every change after it (or
// 410 Expired when storage has compacted it).
func (cs *Caches) Watch(ctx context.Context, resource string, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	from := opts.AfterRevision
	if opts.Initial {
		from = 0
	}
	return retryStopped(cs, func() (engine.CacheWatch, error) { return cs.get(resource, from).Watch(ctx, opts) })
}

// stoppedTries bounds the tries of a request whose cache keeps being
// stopped under it; the last errStopped leaves it to storage (it wraps
// engine.ErrCacheBehind).
const stoppedTries = 3

// retryStopped runs try again, on the new cache that cs.get then starts,
// while the cache it found was stopped before it could answer.
func retryStopped[T any](cs *Caches, try func() (T, error)) (T, error) {
	for i := 1; ; i++ {
		res, err := try()
		if !errors.Is(err, errStopped) || i == stoppedTries || cs.ctx.Err() != nil {
			return res, err
		}
	}
}

// Close stops every cache and ends every watch on them.
func (cs *Caches) Close() {
	cs.cancel()
	cs.wg.Wait()
	cs.progress.stop()
}

// resumePoint is the revision a restarted cache had reached, and when.
type resumePoint struct {
	rev int64
	at  time.Time
}

// resumeFor is how long after a Restart the next cache still starts at
// the old one's revision: long enough for its watchers to watch again,
// short enough that a resource first used much later does not replay
// from etcd all that happened in between.
const resumeFor = time.Minute

// Stop stops the cache of resource, if it runs: its storage watch ends,
// and so do its watches (engine.ErrWatchClosed). Its next use starts a
// new cache, as a first use does. specd serve stops the cache of a
// resource it no longer serves.
func (cs *Caches) Stop(resource string) { cs.stop(resource, false) }

// Restart is Stop for a resource whose cache must start again (its
// schema changed): the next cache, if it starts within a minute, starts
// at the revision this one had reached (or, if storage has compacted
// that, at the current one), so that a client watching again from its
// last event misses nothing.
func (cs *Caches) Restart(resource string) { cs.stop(resource, true) }

func (cs *Caches) stop(resource string, resume bool) {
	cs.mu.Lock()
	if c := cs.caches[resource]; c != nil && resume {
		if r := c.Revision(); r > 0 {
			cs.resume[resource] = resumePoint{rev: r, at: time.Now()}
		}
	}
	stop := cs.stops[resource]
	delete(cs.caches, resource)
	delete(cs.stops, resource)
	cs.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// stopIdle stops, now and then, the caches that have been idle for
// IdleTimeout, until Close.
func (cs *Caches) stopIdle() {
	tick := time.NewTicker(max(cs.cfg.IdleTimeout/2, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-cs.ctx.Done():
			return
		case now := <-tick.C:
			for _, resource := range cs.idle(now) {
				cs.cfg.Logger.Debug("watch cache stopped: idle", "resource", resource, "after", cs.cfg.IdleTimeout)
			}
		}
	}
}

// idle stops the caches idle at now and returns their resources. A use
// marks its cache under cs.mu, so a cache that idle finds idle was not
// handed to a request meanwhile.
func (cs *Caches) idle(now time.Time) []string {
	if cs.cfg.IdleTimeout < 0 {
		return nil
	}
	var stopped []string
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for resource, c := range cs.caches {
		if c.idleFor(now) < cs.cfg.IdleTimeout {
			continue
		}
		cs.stops[resource]()
		delete(cs.caches, resource)
		delete(cs.stops, resource)
		stopped = append(stopped, resource)
	}
	return stopped
}
