package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
)

// DefaultMaxBodyBytes is kube-apiserver's request body limit (3 MiB):
// the server's default, and the Store's bound on a patch's result.
const DefaultMaxBodyBytes = 3 << 20

// limitJSONPatchCopies sets the json-patch library's limit on the bytes
// the copy operations of one JSON patch may add, without which twenty
// copies of an object into itself take gigabytes. The library keeps one
// limit for the process; as kube-apiserver sets it (its
// JSONPatchMaxCopyBytes, the body limit by default), the lowest asked
// for wins.
func limitJSONPatchCopies(limit int64) {
	for {
		cur := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
		if cur > 0 && cur <= limit {
			return
		}
		if atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, cur, limit) {
			return
		}
	}
}

// checkPatched refuses a patch whose result is over the body limit: a
// patch may make no object a PUT could not send.
func checkPatched(patched []byte, limit int64) error {
	if int64(len(patched)) <= limit {
		return nil
	}
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
		"the patched object is %d bytes, limit is %d", len(patched), limit))
}

// sizeLimited refuses a write of a value over max before it reaches the
// storage, which would refuse it less clearly (etcd: "request is too
// large") or not at all.
type sizeLimited struct {
	storage.Storage
	max int64
}

// limitSize wraps st when max > 0.
func limitSize(st storage.Storage, max int64) storage.Storage {
	if st == nil || max <= 0 {
		return st
	}
	return sizeLimited{Storage: st, max: max}
}

func (l sizeLimited) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := l.check(key, value); err != nil {
		return 0, err
	}
	return l.Storage.Create(ctx, key, value)
}

func (l sizeLimited) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	if err := l.check(key, value); err != nil {
		return 0, err
	}
	return l.Storage.Update(ctx, key, value, expectedRevision)
}

func (l sizeLimited) check(key string, value []byte) error {
	if int64(len(value)) <= l.max {
		return nil
	}
	return fmt.Errorf("engine: write %q: %w", key, &storage.SizeError{Size: int64(len(value)), Limit: l.max})
}
