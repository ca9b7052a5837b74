package watchcache

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
)

// Config tunes the caches.
type Config struct {
	// Window is how many recent events each resource keeps for watches
	// from a past revision; DefaultWindow when 0.
	Window int
	// WatcherBuffer is how many events a watcher may fall behind before it
	// is cut off; DefaultWatcherBuffer when 0.
	WatcherBuffer int
	// BookmarkInterval is how often watchers that asked for bookmarks get
	// one; DefaultBookmarkInterval when 0.
	BookmarkInterval time.Duration
	// Logger gets a line when a cache restarts or cuts a watcher off.
	Logger *slog.Logger
}

const (
	DefaultWindow           = 1000
	DefaultWatcherBuffer    = 1000
	DefaultBookmarkInterval = time.Minute
	// retryDelay is the pause before a cache whose watch failed lists again.
	retryDelay = 100 * time.Millisecond
)

// Caches is the watch cache of every resource, each started on first use.
type Caches struct {
	storage engine.Storage
	cfg     Config
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu     sync.Mutex
	caches map[string]*Cache
	stops  map[string]context.CancelFunc // of each cache's run
	// progress is shared by every cache: nil when storage cannot ask for
	// progress (progress.go).
	progress *progress
}

var _ engine.Cache = (*Caches)(nil)

// New returns the caches of the resources in storage. Close stops them.
func New(storage engine.Storage, cfg Config) *Caches {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.WatcherBuffer <= 0 {
		cfg.WatcherBuffer = DefaultWatcherBuffer
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Caches{storage: storage, cfg: cfg, ctx: ctx, cancel: cancel, caches: map[string]*Cache{},
		progress: newProgress(ctx, storage, cfg.Logger)}
}

// For returns the cache of the keys under resource, starting it if needed.
func (cs *Caches) For(resource string) *Cache {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.caches[resource]
	if c == nil {
		c = newCache(cs.storage, resource, cs.cfg)
		c.progress = cs.progress
		cs.caches[resource] = c
		ctx, stop := context.WithCancel(cs.ctx)
		if cs.stops == nil {
			cs.stops = map[string]context.CancelFunc{}
		}
		cs.stops[resource] = stop
		cs.wg.Add(1)
		go func() {
			defer cs.wg.Done()
			c.run(ctx)
		}()
	}
	return c
}

// List implements engine.Cache.
func (cs *Caches) List(ctx context.Context, resource string, opts engine.CacheListOptions) (engine.ListResult, error) {
	return cs.For(resource).List(ctx, opts)
}

// Watch implements engine.Cache.
func (cs *Caches) Watch(ctx context.Context, resource string, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	return cs.For(resource).Watch(ctx, opts)
}

// Close stops every cache and ends every watch on them.
func (cs *Caches) Close() {
	cs.cancel()
	cs.wg.Wait()
	cs.progress.stop()
}

// Start implements engine.Cache.
func (cs *Caches) Start(resource string) { cs.For(resource) }

// Stop stops the cache of resource, if it runs: its storage watch ends,
// and so do its watches (engine.ErrWatchClosed). Its next use starts a
// new cache. specd serve stops the cache of a resource it no longer
// serves, or whose schema changed, when it reloads its schemas.
func (cs *Caches) Stop(resource string) {
	cs.mu.Lock()
	stop := cs.stops[resource]
	delete(cs.caches, resource)
	delete(cs.stops, resource)
	cs.mu.Unlock()
	if stop != nil {
		stop()
	}
}
