package engine

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// deleteCollectionPage is how many objects a deletecollection without a
// limit lists at once, as kube-apiserver's; a variable for the tests.
var deleteCollectionPage int64 = 10000

// DeleteCollection deletes the objects of namespace ("" for all namespaces
// or cluster scope) that a list with req selects, each as Delete would
// with opts, and answers as kube-apiserver does for a custom resource:
//
//   - with req.Limit, one page: the objects of the page a list with req
//     answers (req.Continue and req.ResourceVersion as for a list) are
//     deleted, and the answer is that page, with its continue token and
//     remainingItemCount, so a client deletes a big collection page by
//     page;
//   - without, every page of one snapshot: all the selected objects are
//     deleted, and the answer is the list of them, with the list metadata
//     of the first page.
//
// The items are the objects as they were listed. Objects already gone are
// skipped; the first other error ends the call, leaving what it deleted
// deleted, as in kube-apiserver.
func (s *Store) DeleteCollection(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req ListRequest, opts DeleteOptions) ([]byte, error) {
	limited := req.Limit > 0
	if !limited {
		req.Limit = deleteCollectionPage
	}
	var first storage.ListResult
	var firstNext string
	var items []storage.KeyValue
	for page := 0; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, next, err := s.listResult(ctx, rv, namespace, req)
		if err != nil {
			return nil, err
		}
		if err := s.deleteListed(ctx, rv, res.Items, opts); err != nil {
			return nil, err
		}
		if limited {
			return s.listBody(rv, res, next)
		}
		if page == 0 {
			first, firstNext = res, next
		}
		items = append(items, res.Items...)
		if next == "" {
			first.Items = items
			return s.listBody(rv, first, firstNext)
		}
		// The token carries the snapshot; the version options are the
		// first page's only.
		req.Continue, req.ResourceVersion, req.ResourceVersionMatch = next, "", ""
	}
}

// deleteListed deletes the listed objects with opts; those already gone
// are skipped.
func (s *Store) deleteListed(ctx context.Context, rv *schemas.ResourceVersion, items []storage.KeyValue, opts DeleteOptions) error {
	for _, kv := range items {
		name := kv.Key[strings.LastIndexByte(kv.Key, '/')+1:]
		_, err := s.deleteObject(ctx, rv, kv.Key, name, opts)
		switch {
		case err == nil, errors.Is(err, storage.ErrKeyNotFound), apierrors.IsNotFound(err):
		default:
			var se apierrors.APIStatus
			if errors.As(err, &se) {
				return err
			}
			return storageError(rv.Resource, name, err)
		}
	}
	return nil
}
