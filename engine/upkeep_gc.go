package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// What the garbage collector (engine/gc) reads and writes. Every write is
// conditional on the revision the collector read, so a collector acting on
// an old snapshot, or two specd replicas collecting at once, change nothing
// that moved since.

// StoredObject is the metadata of a stored object the garbage collector
// decides on.
type StoredObject struct {
	Resource        *schemas.Resource
	Namespace, Name string
	UID             string
	Revision        int64
	OwnerReferences []metav1.OwnerReference
	Finalizers      []string
	Deleting        bool // deletionTimestamp is set
}

func (o StoredObject) String() string {
	if o.Namespace == "" {
		return fmt.Sprintf("%s %s", o.Resource.GroupResource(), o.Name)
	}
	return fmt.Sprintf("%s %s/%s", o.Resource.GroupResource(), o.Namespace, o.Name)
}

// scanPage is how many objects ScanResource reads at once.
const scanPage = 1000

// ScanResource calls fn with the metadata of every stored object of r, in
// pages of one snapshot: at revision rev, or the latest when rev is 0. It
// returns the revision it read.
func (u *Upkeep) ScanResource(ctx context.Context, r *schemas.Resource, rev int64, fn func(StoredObject)) (int64, error) {
	return u.scan(ctx, r, u.s.keys.Resource(r), rev, fn)
}

// ScanNamespace is ScanResource for the objects of r in namespace, at the
// latest revision (the namespace controller counts what remains).
func (u *Upkeep) ScanNamespace(ctx context.Context, r *schemas.Resource, namespace string, fn func(StoredObject)) (int64, error) {
	return u.scan(ctx, r, u.s.keys.Namespace(r, namespace), 0, fn)
}

func (u *Upkeep) scan(ctx context.Context, r *schemas.Resource, prefix string, rev int64, fn func(StoredObject)) (int64, error) {
	opts := storage.ListOptions{Limit: scanPage, Revision: rev}
	for {
		res, err := u.s.storage.List(ctx, prefix, opts)
		if err != nil {
			return 0, err
		}
		for _, kv := range res.Items {
			o, err := storedObject(r, kv)
			if err != nil {
				u.s.log.Warn("skipping an undecodable object", "key", kv.Key, "err", err)
				continue
			}
			fn(o)
		}
		if !res.More || len(res.Items) == 0 {
			return res.Revision, nil
		}
		opts.StartKey, opts.Revision = res.Items[len(res.Items)-1].Key+"\x00", res.Revision
	}
}

func storedObject(r *schemas.Resource, kv storage.KeyValue) (StoredObject, error) {
	md := gjson.GetBytes(kv.Value, "metadata")
	o := StoredObject{
		Resource:  r,
		Namespace: md.Get("namespace").String(),
		Name:      md.Get("name").String(),
		UID:       md.Get("uid").String(),
		Revision:  kv.ModRevision,
		Deleting:  md.Get("deletionTimestamp").Exists(),
	}
	for _, f := range md.Get("finalizers").Array() {
		o.Finalizers = append(o.Finalizers, f.String())
	}
	if refs := md.Get("ownerReferences"); refs.Exists() {
		if err := json.Unmarshal([]byte(refs.Raw), &o.OwnerReferences); err != nil {
			return StoredObject{}, fmt.Errorf("ownerReferences: %w", err)
		}
	}
	return o, nil
}

// DeleteStored deletes o as a DELETE with policy would, if it still has
// o's uid and revision.
func (u *Upkeep) DeleteStored(ctx context.Context, o StoredObject, policy metav1.DeletionPropagation) error {
	rv := o.Resource.Version(o.Resource.StorageVersion)
	if rv == nil {
		return fmt.Errorf("engine: %s has no storage version", o.Resource.GroupResource())
	}
	_, err := u.s.Delete(ctx, Ref{Version: rv, Namespace: o.Namespace, Name: o.Name}, DeleteOptions{
		UID: o.UID, ResourceVersion: strconv.FormatInt(o.Revision, 10), PropagationPolicy: policy,
	})
	return err
}

// RemoveOwnerReferences drops o's ownerReferences to uids, if o is still
// at its revision.
func (u *Upkeep) RemoveOwnerReferences(ctx context.Context, o StoredObject, uids []string) error {
	_, err := u.editStored(ctx, o, func(obj []byte) ([]byte, error) {
		refs := gjson.GetBytes(obj, "metadata.ownerReferences").Array()
		kept := make([]json.RawMessage, 0, len(refs))
		for _, ref := range refs {
			if !slices.Contains(uids, ref.Get("uid").String()) {
				kept = append(kept, json.RawMessage(ref.Raw))
			}
		}
		if len(kept) == 0 {
			return sjson.DeleteBytes(obj, "metadata.ownerReferences")
		}
		raw, err := json.Marshal(kept)
		if err != nil {
			return nil, err
		}
		return sjson.SetRawBytes(obj, "metadata.ownerReferences", raw)
	})
	return err
}

// UnblockOwnerReferences sets blockOwnerDeletion to false on every
// ownerReference of o that has it true, if o is still at its revision, and
// returns o as it now is. An object without such a reference is not
// written.
func (u *Upkeep) UnblockOwnerReferences(ctx context.Context, o StoredObject) (StoredObject, error) {
	var blocking []int
	for i, ref := range o.OwnerReferences {
		if ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			blocking = append(blocking, i)
		}
	}
	if len(blocking) == 0 {
		return o, nil
	}
	rev, err := u.editStored(ctx, o, func(obj []byte) ([]byte, error) {
		refs := gjson.GetBytes(obj, "metadata.ownerReferences").Array()
		var err error
		for i, ref := range refs {
			if ref.Get("blockOwnerDeletion").Bool() {
				if obj, err = sjson.SetBytes(obj, "metadata.ownerReferences."+strconv.Itoa(i)+".blockOwnerDeletion", false); err != nil {
					return nil, err
				}
			}
		}
		return obj, nil
	})
	if err != nil {
		return StoredObject{}, err
	}
	o.Revision = rev
	o.OwnerReferences = slices.Clone(o.OwnerReferences)
	for _, i := range blocking {
		o.OwnerReferences[i].BlockOwnerDeletion = new(bool)
	}
	return o, nil
}

// RemoveFinalizer drops finalizer from o, if o is still at its revision.
// A terminating object left without finalizers is deleted.
func (u *Upkeep) RemoveFinalizer(ctx context.Context, o StoredObject, finalizer string) error {
	_, err := u.editStored(ctx, o, func(obj []byte) ([]byte, error) {
		fs := slices.DeleteFunc(storedFinalizers(obj), func(f string) bool { return f == finalizer })
		if len(fs) == 0 {
			return sjson.DeleteBytes(obj, "metadata.finalizers")
		}
		return sjson.SetBytes(obj, "metadata.finalizers", fs)
	})
	return err
}

// editStored rewrites the stored bytes of o at o's revision with edit and
// returns the revision of the write; ErrConflict when o moved,
// ErrKeyNotFound when it is gone.
func (u *Upkeep) editStored(ctx context.Context, o StoredObject, edit func([]byte) ([]byte, error)) (int64, error) {
	key := u.s.keys.Object(o.Resource, o.Namespace, o.Name)
	kv, err := u.s.storage.Get(ctx, key)
	if err != nil {
		return 0, err
	}
	if kv.ModRevision != o.Revision {
		return 0, fmt.Errorf("engine: %s moved: %w", o, storage.ErrConflict)
	}
	updated, err := edit(kv.Value)
	if err != nil {
		return 0, fmt.Errorf("engine: edit %s: %w", o, err)
	}
	// A terminating object left without finalizers is deleted
	// (finalizingStorage).
	return u.s.storage.Update(ctx, key, updated, kv.ModRevision)
}
