package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// follower makes the parts of specd that keep state per resource follow
// a swapped world: the watch caches and the storage migration. Discovery,
// OpenAPI, routes, hook bindings and conversion need nothing: they are
// derived from the registry a request holds.
type follower struct {
	store      *engine.Store
	caches     *servedCaches
	migrations *migrations
	log        *slog.Logger
}

func (f *follower) follow(_ context.Context, old, next *world) {
	storageMoved := false
	for _, res := range resourcesOf(old.reg) {
		key := f.store.CacheKey(res)
		nres := servedResource(next.reg, res.GroupResource())
		switch {
		case !served(nres):
			// Its watches end with an ERROR event; its objects stay.
			f.caches.end(key, goneError(res))
		case old.fingerprints[res.GroupResource()] != next.fingerprints[res.GroupResource()]:
			// A watch must not go on with the old schema or rules, nor a
			// new one be served events converted under them: as
			// kube-apiserver does when a CRD changes, the cache starts
			// again and its watchers watch again.
			f.caches.end(key, nil)
			f.caches.Start(key)
			storageMoved = storageMoved || nres.StorageVersion != res.StorageVersion
		}
	}
	for _, res := range resourcesOf(next.reg) {
		if ores := servedResource(old.reg, res.GroupResource()); served(ores) || !served(res) {
			continue
		}
		// New, or back: its objects (kept in storage) are served again.
		f.caches.revive(f.store.CacheKey(res))
		f.caches.Start(f.store.CacheKey(res))
		storageMoved = true
	}
	if storageMoved {
		f.migrations.restart(next.reg)
	}
}

func resourcesOf(reg *schemas.Registry) []*schemas.Resource {
	var out []*schemas.Resource
	for _, g := range reg.Groups() {
		out = append(out, g.Resources...)
	}
	return out
}

// served reports whether any version of res is served.
func served(res *schemas.Resource) bool {
	if res == nil {
		return false
	}
	for _, rv := range res.Versions {
		if rv.Served() {
			return true
		}
	}
	return false
}

// goneError ends the watches of a resource that is no longer served: a
// 410 Gone Status, so that a client-go informer lists again (and then
// learns from the 404 that the resource is gone).
func goneError(res *schemas.Resource) error {
	return apierrors.NewGone(fmt.Sprintf(
		"%s is no longer served: its schema was removed from the schema directory (its objects stay stored and are served again when it returns)",
		res.GroupResource()))
}

// servedCaches wraps the watch caches so that a reload can end the
// watches of one resource: with an ERROR event when the resource is no
// longer served, cleanly when its schema changed. Watches of the other
// resources are not touched.
type servedCaches struct {
	inner *watchcache.Caches

	mu   sync.Mutex
	gens map[string]*cacheGen // by cache key; absent: live
}

// cacheGen is one generation of a resource's cache; ended once a reload
// replaces it.
type cacheGen struct {
	// end is set once: the generation is over. Its err is what its
	// watches end with (nil: they end cleanly).
	end atomic.Pointer[genEnd]
}

type genEnd struct{ err error }

var _ engine.Cache = (*servedCaches)(nil)

func newServedCaches(inner *watchcache.Caches) *servedCaches {
	return &servedCaches{inner: inner, gens: map[string]*cacheGen{}}
}

func (c *servedCaches) gen(key string) *cacheGen {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gens[key]
	if g == nil {
		g = &cacheGen{}
		c.gens[key] = g
	}
	return g
}

// end ends the generation of key's cache and stops the cache. With err,
// the resource is gone: its watches end with err, and so does any use
// until revive.
func (c *servedCaches) end(key string, err error) {
	c.mu.Lock()
	old := c.gens[key]
	next := &cacheGen{}
	if err != nil {
		next.end.Store(&genEnd{err: err})
	}
	c.gens[key] = next
	c.mu.Unlock()
	if old != nil {
		old.end.Store(&genEnd{err: err})
	}
	c.inner.Stop(key)
}

// revive serves key again after end with an error.
func (c *servedCaches) revive(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.gens[key]; g != nil && g.end.Load() != nil {
		delete(c.gens, key)
	}
}

// List implements engine.Cache.
func (c *servedCaches) List(ctx context.Context, key string, opts engine.CacheListOptions) (engine.ListResult, error) {
	g := c.gen(key)
	if e := g.end.Load(); e != nil && e.err != nil {
		return engine.ListResult{}, e.err
	}
	res, err := c.inner.List(ctx, key, opts)
	if e := g.end.Load(); e != nil && e.err != nil {
		// Gone while this request started its cache again.
		c.inner.Stop(key)
		return engine.ListResult{}, e.err
	}
	return res, err
}

// Watch implements engine.Cache.
func (c *servedCaches) Watch(ctx context.Context, key string, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	g := c.gen(key)
	if e := g.end.Load(); e != nil && e.err != nil {
		return endedWatch{err: e.err}, nil
	}
	w, err := c.inner.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	if e := g.end.Load(); e != nil {
		// The world this request took was replaced while its watch
		// started, perhaps on a cache started again for it.
		w.Stop()
		if e.err != nil {
			c.inner.Stop(key)
		}
	}
	return &servedWatch{CacheWatch: w, gen: g}, nil
}

// Start implements engine.Cache.
func (c *servedCaches) Start(key string) { c.inner.Start(key) }

// servedWatch is a watch of one cache generation.
type servedWatch struct {
	engine.CacheWatch
	gen *cacheGen
}

func (w *servedWatch) Next(ctx context.Context) (engine.Event, error) {
	ev, err := w.CacheWatch.Next(ctx)
	if errors.Is(err, engine.ErrWatchClosed) {
		if e := w.gen.end.Load(); e != nil && e.err != nil {
			return ev, e.err
		}
	}
	return ev, err
}

// endedWatch is a watch of a resource that is gone: it ends at once.
type endedWatch struct{ err error }

func (endedWatch) Initial() ([]engine.KeyValue, int64)          { return nil, 0 }
func (w endedWatch) Next(context.Context) (engine.Event, error) { return engine.Event{}, w.err }
func (endedWatch) Pending() bool                                { return true }
func (endedWatch) Stop()                                        {}

// migrations runs the storage migration (migrate.go) of the served
// world, and starts it again when a reload moves a storage version.
type migrations struct {
	ctx   context.Context
	store *engine.Store
	log   *slog.Logger

	mu   sync.Mutex
	stop func()
}

func (m *migrations) restart(reg *schemas.Registry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop != nil {
		m.stop()
	}
	m.stop = startMigration(m.ctx, m.store, reg, m.log)
}

// Stop stops the migration under way; its progress is kept.
func (m *migrations) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop != nil {
		m.stop()
		m.stop = nil
	}
}
