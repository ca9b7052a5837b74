package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/schemas"
)

// parseResourceVersion reads a resourceVersion parameter: "" is 0.
func parseResourceVersion(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", v))
	}
	return n, nil
}

// notOlderThan is the revision a list must have reached: N of a
// resourceVersion N that is not matched exactly, 0 for any other.
func notOlderThan(req ListRequest) int64 {
	if req.Continue != "" || metav1.ResourceVersionMatch(req.ResourceVersionMatch) == metav1.ResourceVersionMatchExact {
		return 0
	}
	n, _ := parseResourceVersion(req.ResourceVersion)
	return n
}

// listFromCache serves the first page of a list from the watch cache when
// its resourceVersion allows it: "0" (any), N not older than the cache
// (NotOlderThan or no match), or unset (a consistent read, once the cache
// has reached storage's current revision: list.go). served is false when
// storage must answer: no cache, a continue token, Exact (then
// opts.Revision is set to N), or a cache still behind. Later pages
// continue from storage at the cache's revision, one snapshot throughout.
func (s *Store) listFromCache(ctx context.Context, rv *schemas.ResourceVersion, prefix string, req ListRequest, opts *storage.ListOptions) (res storage.ListResult, last string, served bool, err error) {
	n, err := parseResourceVersion(req.ResourceVersion)
	if err != nil {
		return storage.ListResult{}, "", false, err
	}
	switch {
	case req.Continue != "":
		return storage.ListResult{}, "", false, nil
	case metav1.ResourceVersionMatch(req.ResourceVersionMatch) == metav1.ResourceVersionMatchExact:
		opts.Revision = n
		return storage.ListResult{}, "", false, nil
	case s.cache == nil:
		return storage.ListResult{}, "", false, nil
	}
	copts := CacheListOptions{Prefix: prefix, MinRevision: n}
	if req.ResourceVersion == "" {
		if copts, err = s.consistentList(ctx, prefix, copts); err != nil {
			return storage.ListResult{}, "", false, err
		}
	}
	if req.Selector.Empty() {
		copts.Limit = opts.Limit
	}
	// A cache that is not ready soon (etcd unreachable when it started)
	// leaves the list to storage.
	cctx, cancel := context.WithTimeout(ctx, cacheReadyTimeout)
	defer cancel()
	res, err = s.cache.List(cctx, s.keys.Resource(rv.Resource), copts)
	countConsistent(rv.Resource, copts, err)
	if errors.Is(err, ErrCacheBehind) {
		return storage.ListResult{}, "", false, nil
	}
	if err != nil {
		return storage.ListResult{}, "", false, err
	}
	if !req.Selector.Empty() {
		if res, err = s.filterCached(rv, req.Selector, res, opts.Limit); err != nil {
			return storage.ListResult{}, "", false, err
		}
	}
	if len(res.Items) > 0 {
		last = res.Items[len(res.Items)-1].Key
	}
	return res, last, true, nil
}

// filterCached keeps the items sel selects, at most limit (0: all) of
// them. Like a filtered list from storage, a page that stops early has
// Remaining -1 (unknown).
func (s *Store) filterCached(rv *schemas.ResourceVersion, sel Selector, res storage.ListResult, limit int64) (storage.ListResult, error) {
	out := storage.ListResult{Revision: res.Revision}
	for _, kv := range res.Items {
		ok, err := s.selected(rv, sel, kv.Value)
		if err != nil {
			return storage.ListResult{}, err
		}
		if !ok {
			continue
		}
		if limit > 0 && int64(len(out.Items)) == limit {
			out.More, out.Remaining = true, -1
			return out, nil
		}
		out.Items = append(out.Items, kv)
	}
	return out, nil
}

// cacheReadyTimeout is how long a list waits for a cache that is still
// loading before it reads storage instead.
const cacheReadyTimeout = 3 * time.Second

// consistentList makes copts a consistent read from the watch cache, as
// kube-apiserver serves one (ConsistentListFromCache): MinRevision is
// storage's current revision, read now, and the cache serves the list
// once its watch has reached it, with a progress request to storage for
// a resource that has not changed since (watchcache). A cache that cannot
// within cacheReadyTimeout, or whose storage cannot be asked for
// progress, leaves the list to storage, as kube-apiserver falls back to
// etcd.
func (s *Store) consistentList(ctx context.Context, prefix string, copts CacheListOptions) (CacheListOptions, error) {
	cur, err := s.storage.List(ctx, prefix, storage.ListOptions{Limit: 1})
	if err != nil {
		return copts, storageStatus(err)
	}
	copts.MinRevision, copts.Consistent = cur.Revision, true
	return copts, nil
}

// consistentLists counts consistent lists by where they were served.
var consistentLists = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
	Name: "specd_consistent_lists_total",
	Help: "Lists without a resourceVersion (consistent reads) by where they were served: " +
		"cache (the watch cache, once it proved current) or storage (it could not in time).",
}, []string{"group", "resource", "served"})

// countConsistent counts a consistent list that the cache answered with
// err.
func countConsistent(r *schemas.Resource, copts CacheListOptions, err error) {
	if !copts.Consistent {
		return
	}
	served := "cache"
	if err != nil {
		served = "storage"
	}
	consistentLists.WithLabelValues(r.Group, r.Plural, served).Inc()
}
