package engine

import (
	"context"
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
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
func (s *Store) DeleteCollection(ctx context.Context, ref Ref, req ListRequest, opts DeleteOptions) ([]byte, error) {
	rv := ref.Version
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
		res, next, err := s.listResult(ctx, ref, req)
		if err != nil {
			return nil, err
		}
		if err := s.deleteListed(ctx, ref, res.Items, opts); err != nil {
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

// deleteCollectionWorkers delete the objects of a page at once, as
// kube-apiserver's --delete-collection-workers do: etcd commits
// concurrent writes together, so a big collection goes several times
// faster than one object after the other.
const deleteCollectionWorkers = 8

// deleteListed deletes the listed objects with opts; those already gone
// are skipped. The first error ends it, once the deletes under way end.
func (s *Store) deleteListed(ctx context.Context, ref Ref, items []storage.KeyValue, opts DeleteOptions) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan *storage.KeyValue)
	var wg sync.WaitGroup
	for range min(deleteCollectionWorkers, len(items)) {
		wg.Go(func() {
			for kv := range work {
				if err := s.deleteListedItem(ctx, ref, kv, opts); err != nil {
					cancel(err)
				}
			}
		})
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		work <- &items[i]
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}

// deleteListedItem deletes one object listed from the collection ref
// names; one already gone is no error.
func (s *Store) deleteListedItem(ctx context.Context, collection Ref, kv *storage.KeyValue, opts DeleteOptions) error {
	rv := collection.Version
	ref := s.keys.ref(rv, kv.Key)
	name := ref.Name
	listed := kv
	if opts.UID != "" || opts.ResourceVersion != "" {
		listed = nil // preconditions are checked against what is stored
	}
	_, err := s.deleteObject(ctx, ref, opts, listed)
	switch {
	case err == nil, errors.Is(err, storage.ErrKeyNotFound), apierrors.IsNotFound(err):
		return nil
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	return storageError(rv.Resource, name, err)
}
