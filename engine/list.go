package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

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
func (s *Store) List(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req ListRequest) ([]byte, error) {
	prefix := s.listPrefix(rv.Resource, namespace)
	opts := ListOptions{Limit: max(req.Limit, 0)}
	if req.Continue != "" {
		start, rev, err := decodeContinue(req.Continue, prefix)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		opts.StartKey = start
		if rev > 0 {
			opts.Revision = rev
		}
	}
	res, last, cached, err := s.listFromCache(ctx, rv, prefix, req, &opts)
	if err != nil {
		return nil, err
	}
	if !cached {
		res, last, err = s.listPage(ctx, rv, prefix, opts, req.Selector)
	}
	if err != nil {
		if errors.Is(err, ErrCompacted) && opts.StartKey != "" {
			return nil, compactedContinue(prefix, opts.StartKey)
		}
		if errors.Is(err, ErrCompacted) {
			return nil, apierrors.NewResourceExpired(tooOldList)
		}
		return nil, apierrors.NewInternalError(err)
	}
	next := ""
	if res.More && last != "" {
		if next, err = encodeContinue(prefix, last, res.Revision); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	return s.listBody(rv, res, next)
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
func (s *Store) listBody(rv *schemas.ResourceVersion, res ListResult, next string) ([]byte, error) {
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
			return nil, apierrors.NewInternalError(err)
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
