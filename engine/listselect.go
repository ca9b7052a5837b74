package engine

import (
	"context"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// maxSelectChunk is the largest chunk a filtered list reads at once, as
// kube-apiserver's etcd3 store.
const maxSelectChunk = 10000

// listPage reads one page of a list: with an empty selector, one storage
// page; with a selector, chunks of the same snapshot until limit objects
// match or the keys run out, as kube-apiserver pages a filtered list. It
// returns the page and the last key it examined, where the next page
// continues. A filtered page has Remaining -1: how many more would match
// is not known, and kube-apiserver leaves remainingItemCount out.
func (s *Store) listPage(ctx context.Context, rv *schemas.ResourceVersion, prefix string, opts storage.ListOptions, sel Selector) (storage.ListResult, string, error) {
	if sel.Empty() {
		res, err := s.storage.List(ctx, prefix, opts)
		if err != nil || len(res.Items) == 0 {
			return res, "", err
		}
		return res, res.Items[len(res.Items)-1].Key, nil
	}
	limit, chunk := opts.Limit, opts
	out := storage.ListResult{Remaining: -1}
	last := ""
	for {
		res, err := s.storage.List(ctx, prefix, chunk)
		if err != nil {
			return storage.ListResult{}, "", err
		}
		if out.Revision == 0 {
			out.Revision = res.Revision
		}
		for _, kv := range res.Items {
			if limit > 0 && int64(len(out.Items)) >= limit {
				out.More = true
				return out, last, nil
			}
			last = kv.Key
			ok, err := s.selected(rv, sel, kv.Value)
			if err != nil {
				return storage.ListResult{}, "", err
			}
			if ok {
				out.Items = append(out.Items, kv)
			}
		}
		if !res.More || limit == 0 || len(res.Items) == 0 {
			return out, last, nil
		}
		chunk.StartKey, chunk.Revision = last+"\x00", out.Revision
		chunk.Limit = min(chunk.Limit*2, maxSelectChunk)
	}
}

// selected reports whether stored (in the storage version) matches sel in
// rv's version. Labels, name and namespace are the same in every version,
// so the object is converted only for a selectable field of another
// version.
func (s *Store) selected(rv *schemas.ResourceVersion, sel Selector, stored []byte) (bool, error) {
	obj := stored
	if sel.needsConversion() {
		var err error
		if obj, err = s.conv.toVersion(rv, stored); err != nil {
			return false, err
		}
	}
	return sel.Matches(rv, obj), nil
}

// needsConversion reports whether the selector reads a field outside
// metadata.
func (s Selector) needsConversion() bool {
	if s.Fields == nil {
		return false
	}
	for _, r := range s.Fields.Requirements() {
		if r.Field != fieldName && r.Field != fieldNamespace {
			return true
		}
	}
	return false
}
