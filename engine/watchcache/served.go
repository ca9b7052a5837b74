package watchcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Served wraps the watch caches so that a schema reload can end the
// watches of one resource: with an ERROR event when the resource, or the
// version a watch serves, is no longer served; cleanly when its
// declaration changed. Watches of the other resources are not touched.
// It follows reloads as a serving.Follower (follow.go).
type Served struct {
	inner *Caches
	// key names a resource's cache: engine.Keys.Resource.
	key func(*schemas.Resource) string

	mu   sync.RWMutex
	gens map[string]*cacheGen // by cache key: the generation serving now

	// swapMu orders the reloads' AfterSwap calls, and guards last.
	swapMu sync.Mutex
	// last is the registry of the last AfterSwap and its served
	// resources by cache key: that reload's next is the following one's
	// old, and with thousands of CRDs each reload would index it again.
	last servedIndex
}

// servedIndex is a registry's served resources by cache key.
type servedIndex struct {
	reg *schemas.Registry
	at  map[string][]*schemas.Resource
}

var _ engine.Cache = (*Served)(nil)

// NewServed returns inner as served, naming each resource's cache with key
// (engine.Keys.Resource, with the Store's prefix).
func NewServed(inner *Caches, key func(*schemas.Resource) string) *Served {
	return &Served{inner: inner, key: key, gens: map[string]*cacheGen{}}
}

// cacheGen is one generation of a resource's cache; ended once a reload
// replaces it.
type cacheGen struct {
	// end is set once: the generation is over.
	end atomic.Pointer[genEnd]
	// gone are the versions the reload that began the generation stopped
	// serving, with the error their watches end with: a request that took
	// the registry before that reload may still ask for one.
	gone map[string]error
}

// genEnd is what the watches of an ended generation end with: err, else
// the error of their version in gone, else nothing (they end cleanly).
type genEnd struct {
	err  error
	gone map[string]error
}

func (e *genEnd) errFor(version string) error {
	if e.err != nil {
		return e.err
	}
	return e.gone[version]
}

// refused is the error a new watch of version in g ends with at once; nil
// when it may start.
func (g *cacheGen) refused(version string) error {
	if e := g.end.Load(); e != nil && e.err != nil {
		return e.err
	}
	return g.gone[version]
}

func (c *Served) gen(key string) *cacheGen {
	// Every list and watch asks: a read lock serves all but the first.
	c.mu.RLock()
	g := c.gens[key]
	c.mu.RUnlock()
	if g != nil {
		return g
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g = c.gens[key]
	if g == nil {
		g = &cacheGen{}
		c.gens[key] = g
	}
	return g
}

// end ends the generation of key's cache and stops the cache. With err,
// the resource is gone: its watches end with err, and so does any use
// until revive. Otherwise the watches of the versions in gone end with
// their error, and so do new watches of them; the others end cleanly.
func (c *Served) end(key string, err error, gone map[string]error) {
	c.mu.Lock()
	old := c.gens[key]
	next := &cacheGen{gone: gone}
	if err != nil {
		next.end.Store(&genEnd{err: err})
	}
	c.gens[key] = next
	c.mu.Unlock()
	if old != nil {
		old.end.Store(&genEnd{err: err, gone: gone})
	}
	if err != nil {
		c.inner.Stop(key)
		return
	}
	c.inner.Restart(key)
}

// revive serves key again after end with an error.
func (c *Served) revive(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.gens[key]; g != nil && g.end.Load() != nil {
		delete(c.gens, key)
	}
}

// List implements engine.Cache.
func (c *Served) List(ctx context.Context, key string, opts engine.CacheListOptions) (storage.ListResult, error) {
	g := c.gen(key)
	if e := g.end.Load(); e != nil && e.err != nil {
		return storage.ListResult{}, e.err
	}
	res, err := c.inner.List(ctx, key, opts)
	if e := g.end.Load(); e != nil && e.err != nil {
		// Gone while this request started its cache again.
		c.inner.Stop(key)
		return storage.ListResult{}, e.err
	}
	return res, err
}

// Watch implements engine.Cache.
func (c *Served) Watch(ctx context.Context, key string, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	g := c.gen(key)
	if err := g.refused(opts.Version); err != nil {
		return endedWatch{err: err}, nil
	}
	w, err := c.inner.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	if e := g.end.Load(); e != nil {
		// The registry this request took was replaced while its watch
		// started, perhaps on a cache started again for it.
		w.Stop()
		if e.err != nil {
			c.inner.Stop(key)
		}
	}
	return &servedWatch{CacheWatch: w, gen: g, version: opts.Version}, nil
}

// servedWatch is a watch of one cache generation, in one version.
type servedWatch struct {
	engine.CacheWatch
	gen     *cacheGen
	version string
}

func (w *servedWatch) Next(ctx context.Context) (storage.Event, error) {
	ev, err := w.CacheWatch.Next(ctx)
	if errors.Is(err, engine.ErrWatchClosed) {
		if e := w.gen.end.Load(); e != nil {
			if gerr := e.errFor(w.version); gerr != nil {
				return ev, gerr
			}
		}
	}
	return ev, err
}

// endedWatch is a watch of a resource that is gone: it ends at once.
type endedWatch struct{ err error }

func (endedWatch) Initial() ([]storage.KeyValue, int64)          { return nil, 0 }
func (w endedWatch) Next(context.Context) (storage.Event, error) { return storage.Event{}, w.err }
func (endedWatch) Pending() bool                                 { return true }
func (endedWatch) Stop()                                         {}
