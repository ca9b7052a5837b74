package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/specd-io/specd/engine/storage"
)

// Cache is a watch cache: the objects of each resource kept in memory,
// fed by one storage watch per resource, serving lists and watches without
// reading storage. engine/watchcache implements it; a Store without one
// serves everything from storage and cannot watch.
//
// A resource is named by its key prefix (every object of every namespace);
// requests narrow it with their own Prefix or Key.
//
// The cache of a resource starts on its first use, at the revision that
// use needs: a watch from revision N on a resource not followed yet gets
// every change after N, as if the cache had run since N (410 Expired only
// once storage has compacted N). A list starts it at the current
// revision; a watch from before that still gets every change since,
// storage serving those before the cache's start.
type Cache interface {
	// List returns the objects under opts.Prefix as of the cache's
	// revision. When the cache has not seen opts.MinRevision yet it
	// answers ErrCacheBehind and the caller reads storage instead.
	List(ctx context.Context, resource string, opts CacheListOptions) (storage.ListResult, error)
	// Watch starts a watch; see CacheWatchOptions. A start revision that
	// storage has compacted, or older than the window once the window has
	// dropped events, is an *ExpiredError.
	Watch(ctx context.Context, resource string, opts CacheWatchOptions) (CacheWatch, error)
}

// CacheListOptions select a list from the cache.
type CacheListOptions struct {
	Prefix      string
	MinRevision int64
	// Consistent marks a consistent list: MinRevision is storage's
	// current revision, and the cache may wait (until ctx ends) for
	// storage to tell its watch that it is there (list.go).
	Consistent bool
	// Limit, when > 0, is the most items to return; More and Remaining
	// say what is left.
	Limit int64
}

// CacheWatchOptions select and position a watch.
type CacheWatchOptions struct {
	// Prefix selects the keys under it; Key, when set, one key only.
	Prefix string
	Key    string
	// AfterRevision: send the changes made after it. 0 means after the
	// cache's current revision. A revision the cache has not reached yet
	// is fine: events up to it are skipped.
	AfterRevision int64
	// Initial asks for the current objects too, returned by
	// CacheWatch.Initial; the watch then sends what changes after them.
	// AfterRevision must be 0.
	Initial bool
	// Bookmarks asks for EventBookmark events now and then.
	Bookmarks bool
	// Version is the apiVersion (group/version) the watch is served in.
	// The cache serves every version alike, of every resource stored under
	// its prefix; a wrapper that stops serving one version of a resource
	// ends the watches of that version alone with an error
	// (watchcache.Served, when a schema reload stops serving it).
	Version string
}

// CacheWatch is one watch on a Cache.
type CacheWatch interface {
	// Initial is the objects at the start and their revision (when
	// CacheWatchOptions.Initial was set); the events follow on from it.
	Initial() (items []storage.KeyValue, revision int64)
	// Next returns the next event, waiting for one until ctx ends (its
	// error then). ErrWatchClosed means the cache ended the watch: the
	// watcher fell too far behind, or the cache restarted; the client
	// watches again from the last revision it saw.
	Next(ctx context.Context) (storage.Event, error)
	// Pending reports whether Next would return at once.
	Pending() bool
	// Stop ends the watch and frees it; Next then answers ErrWatchClosed.
	Stop()
}

var (
	// ErrWatchClosed ends a watch the cache closed.
	ErrWatchClosed = errors.New("watch: closed by the cache")
	// ErrCacheBehind: the cache has not reached the revision asked for.
	ErrCacheBehind = errors.New("watch cache: behind the requested revision")
)

// ExpiredError is a watch from a revision older than the cache keeps, or
// than storage does.
type ExpiredError struct {
	Revision int64 // asked for
	Oldest   int64 // the oldest revision a watch can start after
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("too old resource version: %d (%d)", e.Revision, e.Oldest)
}

// Is makes an ExpiredError an ErrCompacted.
func (e *ExpiredError) Is(target error) bool { return target == storage.ErrCompacted }
