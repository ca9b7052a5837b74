package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/specd-io/specd/engine/storage"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// follower makes the watch caches, which keep state per resource, follow
// a swapped world (the storage migration follows it by itself:
// migrate.Runner). Discovery, OpenAPI, routes, hook bindings and
// conversion need nothing: they are derived from the registry a request
// holds.
type follower struct {
	store  *engine.Store
	caches *servedCaches
	log    *slog.Logger
}

func (f *follower) follow(_ context.Context, old, next *world) {
	for _, res := range resourcesOf(old.reg) {
		key := f.store.CacheKey(res)
		nres := servedResource(next.reg, res.GroupResource())
		switch {
		case !served(nres):
			// Its watches end with an ERROR event; its objects stay.
			f.caches.end(key, goneError(res), nil)
		case old.fingerprints[res.GroupResource()] != next.fingerprints[res.GroupResource()]:
			// A watch must not go on with the old schema or rules, nor a
			// new one be served events converted under them: as
			// kube-apiserver does when a CRD changes, the cache stops
			// and its watchers watch again; the cache starts again at
			// the revision they watch from, so they miss nothing. Those
			// of a version no longer served get an ERROR event instead.
			f.caches.end(key, nil, versionsGone(res, nres))
		}
	}
	for _, res := range resourcesOf(next.reg) {
		if ores := servedResource(old.reg, res.GroupResource()); served(ores) || !served(res) {
			continue
		}
		// New, or back: its objects (kept in storage) are served again;
		// its cache starts on first use.
		f.caches.revive(f.store.CacheKey(res))
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

// versionsGone are the errors that end the watches of the versions old
// served and next does not, by version.
func versionsGone(old, next *schemas.Resource) map[string]error {
	var gone map[string]error
	for _, rv := range old.Versions {
		if !rv.Served() {
			continue
		}
		if nrv := next.Version(rv.Version); nrv != nil && nrv.Served() {
			continue
		}
		if gone == nil {
			gone = map[string]error{}
		}
		gone[rv.Version] = versionGoneError(rv, next)
	}
	return gone
}

// versionGoneError ends the watches of a version that is no longer
// served while others of its resource are: a 410 Gone Status, as for a
// removed resource, that names where the objects are still served.
func versionGoneError(rv *schemas.ResourceVersion, next *schemas.Resource) error {
	var still []string
	for _, nrv := range next.Versions {
		if nrv.Served() {
			still = append(still, nrv.APIVersion())
		}
	}
	return apierrors.NewGone(fmt.Sprintf(
		"%s %s is no longer served: the version was removed from the schema directory or is not served (its objects stay stored and are served in %s)",
		rv.APIVersion(), rv.Resource.Plural, strings.Join(still, ", ")))
}

// servedCaches wraps the watch caches so that a reload can end the
// watches of one resource: with an ERROR event when the resource, or the
// version a watch serves, is no longer served; cleanly when its schema
// changed. Watches of the other resources are not touched.
type servedCaches struct {
	inner *watchcache.Caches

	mu   sync.Mutex
	gens map[string]*cacheGen // by cache key; absent: live
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
// until revive. Otherwise the watches of the versions in gone end with
// their error, and so do new watches of them; the others end cleanly.
func (c *servedCaches) end(key string, err error, gone map[string]error) {
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
func (c *servedCaches) revive(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.gens[key]; g != nil && g.end.Load() != nil {
		delete(c.gens, key)
	}
}

// List implements engine.Cache.
func (c *servedCaches) List(ctx context.Context, key string, opts engine.CacheListOptions) (storage.ListResult, error) {
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
func (c *servedCaches) Watch(ctx context.Context, key string, opts engine.CacheWatchOptions) (engine.CacheWatch, error) {
	g := c.gen(key)
	if err := g.refused(opts.Version); err != nil {
		return endedWatch{err: err}, nil
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
