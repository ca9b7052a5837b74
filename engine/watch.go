package engine

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
)

// Watch starts a watch of the objects of ref's version in its namespace
// ("" for all). A resourceVersion older than the cache keeps is a 410
// Expired Status.
func (s *Store) Watch(ctx context.Context, ref Ref, req WatchRequest) (*Watch, error) {
	rv, namespace := ref.Version, ref.Namespace
	if s.cache == nil {
		return nil, apierrors.NewMethodNotSupported(groupResource(rv.Resource), "watch")
	}
	n, err := parseResourceVersion(req.ResourceVersion)
	if err != nil {
		return nil, err
	}
	w := &Watch{conv: s.conv, rv: rv, apiVersion: rv.APIVersion(), sel: req.Selector, bookmarks: req.AllowBookmarks}
	opts := CacheWatchOptions{Prefix: s.keys.Namespace(rv.Resource, namespace), Bookmarks: req.AllowBookmarks, Version: w.apiVersion}
	// One name in one namespace (or of a cluster-scoped resource) is one
	// key; across namespaces the selector alone picks the objects.
	if req.Selector.Fields != nil && (namespace != "" || !rv.Resource.Namespaced()) {
		if name, ok := req.Selector.Fields.RequiresExactMatch(fieldName); ok {
			opts.Key = s.keys.Object(rv.Resource, namespace, name)
		}
	}
	initial := req.SendInitialEvents == nil && req.ResourceVersion == "" || req.ResourceVersion == "0"
	if req.SendInitialEvents != nil {
		initial = *req.SendInitialEvents
		w.endBookmark = initial
	}
	switch {
	case initial && req.ResourceVersion == "0":
		opts.Initial = true
	case initial:
		// A consistent start (unset) or one at least n: read storage.
		return s.watchFromStorage(ctx, w, opts, n)
	default:
		opts.AfterRevision = n
	}
	if w.cw, err = s.cache.Watch(ctx, s.keys.Resource(rv.Resource), opts); err != nil {
		return nil, watchError(err)
	}
	w.initial, w.initialRev = w.cw.Initial()
	return w, nil
}

// watchFromStorage starts a watch with the objects read from storage, then
// the cache's events after them. A cache not running yet starts at that
// read's revision; one whose window has passed it meanwhile (many writes
// since) makes it read again.
func (s *Store) watchFromStorage(ctx context.Context, w *Watch, opts CacheWatchOptions, minRev int64) (*Watch, error) {
	for attempt := 0; ; attempt++ {
		res, err := s.storage.List(ctx, opts.Prefix, storage.ListOptions{})
		if err != nil {
			return nil, storageStatus(err)
		}
		items := res.Items
		if opts.Key != "" {
			items = nil
			for _, kv := range res.Items {
				if kv.Key == opts.Key {
					items = append(items, kv)
				}
			}
		}
		if minRev > res.Revision {
			return nil, tooLargeResourceVersion(minRev, res.Revision)
		}
		opts.AfterRevision = res.Revision
		cw, err := s.cache.Watch(ctx, s.keys.Resource(w.rv.Resource), opts)
		var expired *ExpiredError
		if errors.As(err, &expired) && attempt == 0 {
			continue
		}
		if err != nil {
			return nil, watchError(err)
		}
		w.cw, w.initial, w.initialRev = cw, items, opts.AfterRevision
		return w, nil
	}
}

// watchError is 410 Expired for a revision the window has passed; any
// other error is a failure the server answers with a 500.
func watchError(err error) error {
	var expired *ExpiredError
	if errors.As(err, &expired) {
		return apierrors.NewResourceExpired(expired.Error())
	}
	return err
}
