package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/schemas"
)

// The messages kube-apiserver gives when a continue token's snapshot was
// compacted.
const (
	continueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	inconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

// List returns a <Kind>List of the objects in namespace ("" for all
// namespaces or cluster scope) in rv's version. The stored items are joined
// as they are, each with its resourceVersion; none is decoded.
func (s *Store) List(ctx context.Context, ref Ref, req ListRequest) ([]byte, error) {
	res, next, err := s.listResult(ctx, ref, req)
	if err != nil {
		return nil, err
	}
	return s.listBody(ref.Version, res, next)
}

// listResult reads what List answers: one page, from the watch cache when
// the request allows it, else from storage, and the continue token of the
// next page ("" when there is none).
func (s *Store) listResult(ctx context.Context, ref Ref, req ListRequest) (storage.ListResult, string, error) {
	rv := ref.Version
	prefix := s.keys.Namespace(rv.Resource, ref.Namespace)
	opts := storage.ListOptions{Limit: max(req.Limit, 0)}
	if req.Continue != "" {
		start, rev, err := decodeContinue(req.Continue, prefix)
		if err != nil {
			return storage.ListResult{}, "", apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		if req.ResourceVersion != "" && req.ResourceVersion != "0" {
			return storage.ListResult{}, "", apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		opts.StartKey = start
		if rev > 0 {
			opts.Revision = rev
		}
	}
	res, last, cached, err := s.listFromCache(ctx, rv, prefix, req, &opts)
	if err != nil {
		return storage.ListResult{}, "", err
	}
	if !cached {
		res, last, err = s.listPage(ctx, rv, prefix, opts, req.Selector)
	}
	if err != nil {
		return storage.ListResult{}, "", listError(err, prefix, opts.StartKey)
	}
	if min := notOlderThan(req); res.Revision < min {
		// Storage has not reached the revision asked for: it is from
		// the future (forged, or of another cluster).
		return storage.ListResult{}, "", tooLargeResourceVersion(min, res.Revision)
	}
	next := ""
	if res.More && last != "" {
		if next, err = encodeContinue(prefix, last, res.Revision); err != nil {
			return storage.ListResult{}, "", err
		}
	}
	return res, next, nil
}

// compactedContinue is the 410 Gone answer to a continue token whose
// snapshot is gone, with a token that continues at the latest revision.
func compactedContinue(prefix, startKey string) error {
	// startKey is the last key of the previous page plus "\x00".
	token, err := encodeContinue(prefix, strings.TrimSuffix(startKey, "\x00"), -1)
	if err != nil {
		return apierrors.NewResourceExpired(continueExpired)
	}
	se := apierrors.NewResourceExpired(inconsistentContinue)
	se.ErrStatus.ListMeta.Continue = token
	return se
}

// listBody writes {"apiVersion","items","kind","metadata"} with the items'
// bytes joined.
func (s *Store) listBody(rv *schemas.ResourceVersion, res storage.ListResult, next string) ([]byte, error) {
	size := 160 + len(next)
	for _, kv := range res.Items {
		size += len(kv.Value) + 32
	}
	listKind := rv.Resource.ListKind
	if listKind == "" {
		listKind = rv.Resource.Kind + "List"
	}
	b := make([]byte, 0, size)
	b = append(b, `{"apiVersion":`...)
	b = appendString(b, rv.APIVersion())
	b = append(b, `,"items":[`...)
	for i, kv := range res.Items {
		if i > 0 {
			b = append(b, ',')
		}
		obj, err := s.toVersion(rv, kv.Value)
		if err != nil {
			return nil, err
		}
		if b, err = appendWithResourceVersion(b, obj, kv.ModRevision); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"kind":`...)
	b = appendString(b, listKind)
	b = append(b, `,"metadata":{"continue":`...)
	b = appendString(b, next)
	if res.More && res.Remaining >= 0 {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, res.Remaining, 10)
	}
	b = append(b, `,"resourceVersion":"`...)
	b = strconv.AppendInt(b, res.Revision, 10)
	return append(b, `"}}`...), nil
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

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
