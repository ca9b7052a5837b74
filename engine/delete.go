package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// deleteAttempts bounds the retries of a conditional delete that races
// with writes.
const deleteAttempts = 5

// Delete removes an object and answers what kube-apiserver answers for a
// custom resource: a Status of Success with the object's details, or, while
// finalizers hold it, the object marked for deletion (finalizers.go).
func (s *Store) Delete(ctx context.Context, ref Ref, opts DeleteOptions) (Result, error) {
	r := ref.Version.Resource
	if ref.Subresource != "" {
		return Result{}, apierrors.NewMethodNotSupported(groupResource(r), "delete")
	}
	res, err := s.deleteObject(ctx, ref, opts, nil)
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return Result{}, err
		}
		return Result{}, storageError(r, ref.Name, err)
	}
	return res, nil
}

// checkDeletePreconditions answers as kube-apiserver does when a delete's
// uid or resourceVersion precondition does not hold.
func checkDeletePreconditions(r *schemas.Resource, name string, kv storage.KeyValue, opts DeleteOptions) error {
	qualified := schema.GroupResource{Group: r.Group, Resource: r.Kind}
	if opts.UID != "" {
		if uid := gjson.GetBytes(kv.Value, "metadata.uid").String(); uid != opts.UID {
			return apierrors.NewConflict(qualified, name, fmt.Errorf(
				"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated",
				opts.UID, uid))
		}
	}
	if opts.ResourceVersion != "" {
		if current := strconv.FormatInt(kv.ModRevision, 10); current != opts.ResourceVersion {
			return apierrors.NewConflict(qualified, name, fmt.Errorf(
				"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified",
				opts.ResourceVersion, current))
		}
	}
	return nil
}

// deleteStatus is the Status kube-apiserver answers a delete with.
func deleteStatus(r *schemas.Resource, name, uid string) []byte {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name:  name,
			Group: r.Group,
			Kind:  r.Plural,
			UID:   types.UID(uid),
		},
	}
	b, _ := json.Marshal(st) // a Status always encodes
	return b
}

// deleteObject deletes the object at key as kube-apiserver deletes a custom
// resource: with finalizers left (its own, or the one the propagation
// policy adds), the object is only marked with deletionTimestamp and
// deletionGracePeriodSeconds 0 and answered; without, it goes at once and
// the answer is a Success Status. Preconditions are checked against the
// revision that is written or deleted. The resource's Strategy may refuse
// the delete, or hold the object (Strategy.Holds) as a finalizer would.
// listed, when not nil, is the object as a list just read it: the first
// attempt acts on it without reading it again.
func (s *Store) deleteObject(ctx context.Context, ref Ref, opts DeleteOptions, listed *storage.KeyValue) (Result, error) {
	r := ref.Version.Resource
	st := s.strategies.of(r)
	if st != nil && st.CheckDelete != nil {
		if err := st.CheckDelete(ctx, ref.Name); err != nil {
			return Result{}, err
		}
	}
	key := s.keys.Object(r, ref.Namespace, ref.Name)
	for attempt := 1; ; attempt++ {
		kv, err := s.storedOrListed(ctx, key, listed)
		listed = nil
		if err != nil {
			return Result{}, err
		}
		if err := checkDeletePreconditions(r, ref.Name, kv, opts); err != nil {
			return Result{}, err
		}
		finalizers := deletionFinalizers(storedFinalizers(kv.Value), opts)
		var res Result
		if len(finalizers) > 0 || st != nil && st.Holds != nil && st.Holds(kv.Value) {
			res, err = s.markDeleting(ctx, ref, kv, finalizers, opts.DryRun)
		} else {
			res, err = s.deleteNow(ctx, ref, kv, opts.DryRun)
		}
		if errors.Is(err, storage.ErrConflict) && attempt < deleteAttempts {
			continue
		}
		return res, err
	}
}

// storedOrListed is listed, or the stored object at key when nil.
func (s *Store) storedOrListed(ctx context.Context, key string, listed *storage.KeyValue) (storage.KeyValue, error) {
	if listed != nil {
		return *listed, nil
	}
	return s.storage.Get(ctx, key)
}

// deleteNow deletes exactly the revision kv of the object ref names
// (nothing on a dry run).
func (s *Store) deleteNow(ctx context.Context, ref Ref, kv storage.KeyValue, dryRun bool) (Result, error) {
	r := ref.Version.Resource
	if !dryRun {
		if _, err := s.storage.Delete(ctx, s.keys.Object(r, ref.Namespace, ref.Name), kv.ModRevision); err != nil {
			return Result{}, err
		}
		s.notifyDelete()
	}
	return Result{Object: deleteStatus(r, ref.Name, gjson.GetBytes(kv.Value, "metadata.uid").String())}, nil
}

// markDeleting stores kv, the object ref names, with finalizers and the
// deletion mark, and answers the object in ref's version.
func (s *Store) markDeleting(ctx context.Context, ref Ref, kv storage.KeyValue, finalizers []string, dryRun bool) (Result, error) {
	rv := ref.Version
	key := s.keys.Object(rv.Resource, ref.Namespace, ref.Name)
	updated, err := markAsDeleting(kv.Value, finalizers, s.now())
	if err != nil {
		return Result{}, err
	}
	if st := s.strategies.of(rv.Resource); st != nil && st.MarkDeleting != nil {
		if updated, err = st.MarkDeleting(updated); err != nil {
			return Result{}, fmt.Errorf("engine: mark %s deleting: %w", key, err)
		}
	}
	rev := kv.ModRevision
	if !dryRun && (kv.Stale || !bytes.Equal(updated, kv.Value)) {
		if rev, err = s.storage.Update(ctx, key, updated, kv.ModRevision); err != nil {
			return Result{}, err
		}
		s.notifyDelete()
	}
	obj, err := s.conv.toVersion(rv, updated)
	if err != nil {
		return Result{}, err
	}
	out, err := served(obj, rev)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: out}, nil
}

// notifyDelete pulls Options.OnDelete, the garbage collector's trigger.
func (s *Store) notifyDelete() {
	if s.onDelete != nil {
		s.onDelete()
	}
}
