package engine

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
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
		obj, err := s.conv.toVersion(rv, kv.Value)
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
