package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine/storage"
)

// The finalizers of the garbage collector's propagation policies.
const (
	FinalizerOrphan     = metav1.FinalizerOrphanDependents // "orphan"
	FinalizerForeground = metav1.FinalizerDeleteDependents // "foregroundDeletion"
)

// storedFinalizers reads metadata.finalizers.
func storedFinalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "metadata.finalizers").Array() {
		out = append(out, f.String())
	}
	return out
}

// deletionFinalizers is the finalizers an object keeps when it is deleted
// with opts, as kube-apiserver decides them for a resource whose default
// policy is to delete dependents in the background: Orphan adds "orphan",
// Foreground adds "foregroundDeletion", Background removes both; with no
// policy the object's own choice stays.
func deletionFinalizers(current []string, opts DeleteOptions) []string {
	orphan, foreground := slices.Contains(current, FinalizerOrphan), slices.Contains(current, FinalizerForeground)
	switch {
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, false
	case opts.PropagationPolicy == metav1.DeletePropagationOrphan:
		orphan, foreground = true, false
	case opts.PropagationPolicy == metav1.DeletePropagationForeground:
		orphan, foreground = false, true
	case opts.PropagationPolicy == metav1.DeletePropagationBackground:
		orphan, foreground = false, false
	case orphan:
		foreground = false
	}
	out := make([]string, 0, len(current)+1)
	for _, f := range current {
		if f != FinalizerOrphan && f != FinalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, FinalizerOrphan)
	}
	if foreground {
		out = append(out, FinalizerForeground)
	}
	return out
}

// markAsDeleting sets the finalizers and, on the first delete, the
// deletionTimestamp (now) and a generation one higher; the grace period
// of a custom resource is always 0.
func markAsDeleting(obj []byte, finalizers []string, now time.Time) ([]byte, error) {
	var err error
	if !slices.Equal(finalizers, storedFinalizers(obj)) {
		if obj, err = sjson.SetBytes(obj, "metadata.finalizers", finalizers); err != nil {
			return nil, fmt.Errorf("engine: set finalizers: %w", err)
		}
	}
	if !gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() {
		if g := gjson.GetBytes(obj, "metadata.generation").Int(); g > 0 {
			if obj, err = sjson.SetBytes(obj, "metadata.generation", g+1); err != nil {
				return nil, fmt.Errorf("engine: set generation: %w", err)
			}
		}
		ts := now.UTC().Truncate(time.Second).Format(time.RFC3339)
		if obj, err = sjson.SetBytes(obj, "metadata.deletionTimestamp", ts); err != nil {
			return nil, fmt.Errorf("engine: set deletionTimestamp: %w", err)
		}
	}
	if gjson.GetBytes(obj, "metadata.deletionGracePeriodSeconds").Raw != "0" {
		if obj, err = sjson.SetBytes(obj, "metadata.deletionGracePeriodSeconds", 0); err != nil {
			return nil, fmt.Errorf("engine: set deletionGracePeriodSeconds: %w", err)
		}
	}
	return obj, nil
}

// emptiedFinalizers reports whether an update leaves a terminating object
// without finalizers: then the object is deleted instead of written.
func emptiedFinalizers(obj []byte) bool {
	return gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() &&
		len(gjson.GetBytes(obj, "metadata.finalizers").Array()) == 0
}

// finalizingStorage is the Store's storage: an update that leaves a
// terminating object without finalizers deletes it instead (exactly the
// revision the update expected), whichever write path made it — update,
// patch, apply, status, the garbage collector — as kube-apiserver does.
// The revision it answers is the deleted one, so the write's answer
// carries the object's last resourceVersion. It also calls notify (the
// garbage collector's trigger) after every such delete and every write of
// an object with ownerReferences.
//
// An object a Strategy holds (Strategy.Holds, through holds) is not
// emptied while it holds it.
type finalizingStorage struct {
	storage.Storage
	notify func()                              // may be nil
	holds  func(key string, value []byte) bool // may be nil
}

func finalizing(st storage.Storage, notify func(), holds func(key string, value []byte) bool) storage.Storage {
	if st == nil {
		return nil
	}
	return finalizingStorage{Storage: st, notify: notify, holds: holds}
}

func (f finalizingStorage) Create(ctx context.Context, key string, value []byte) (int64, error) {
	rev, err := f.Storage.Create(ctx, key, value)
	if err == nil {
		f.notifyOwned(value)
	}
	return rev, err
}

func (f finalizingStorage) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	if !emptiedFinalizers(value) || f.holds != nil && f.holds(key, value) {
		rev, err := f.Storage.Update(ctx, key, value, expectedRevision)
		if err == nil {
			f.notifyOwned(value)
		}
		return rev, err
	}
	kv, err := f.Storage.Delete(ctx, key, expectedRevision)
	if err != nil {
		return 0, err
	}
	if f.notify != nil {
		f.notify()
	}
	return kv.ModRevision, nil
}

// notifyOwned calls notify when value has owners: they may be gone.
func (f finalizingStorage) notifyOwned(value []byte) {
	if f.notify != nil && gjson.GetBytes(value, "metadata.ownerReferences").Exists() {
		f.notify()
	}
}
