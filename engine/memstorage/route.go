package memstorage

import (
	"context"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/storage"
)

// progressRequester is watchcache.ProgressRequester.
type progressRequester interface {
	RequestProgress(ctx context.Context) error
}

// Route returns base with the keys under prefix kept in mem instead. A
// list or watch goes to mem when its prefix is under prefix, else to
// base: one that spans both (a prefix above prefix) sees base's keys
// only; the engine lists and watches one resource at a time. The result
// requests watch progress (of both) when base can, and expires keys
// (base's) when base can.
func Route(base storage.Storage, prefix string, mem *Storage) storage.Storage {
	r := &routed{base: base, prefix: prefix, mem: mem}
	pr, progress := base.(progressRequester)
	ex, expires := base.(storage.Expirer)
	p := &progressing{r: r, base: pr}
	e := &expiring{r: r, base: ex}
	switch {
	case progress && expires:
		return struct {
			*routed
			*progressing
			*expiring
		}{r, p, e}
	case progress:
		return struct {
			*routed
			*progressing
		}{r, p}
	case expires:
		return struct {
			*routed
			*expiring
		}{r, e}
	}
	return r
}

type routed struct {
	base   storage.Storage
	prefix string
	mem    *Storage
}

func (r *routed) pick(key string) storage.Storage {
	if strings.HasPrefix(key, r.prefix) {
		return r.mem
	}
	return r.base
}

func (r *routed) Create(ctx context.Context, key string, value []byte) (int64, error) {
	return r.pick(key).Create(ctx, key, value)
}

func (r *routed) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	return r.pick(key).Get(ctx, key)
}

func (r *routed) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	return r.pick(prefix).List(ctx, prefix, opts)
}

func (r *routed) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	return r.pick(key).Update(ctx, key, value, expectedRevision)
}

func (r *routed) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, error) {
	return r.pick(key).Delete(ctx, key, expectedRevision)
}

func (r *routed) Watch(ctx context.Context, prefix string, afterRevision int64) <-chan storage.Event {
	return r.pick(prefix).Watch(ctx, prefix, afterRevision)
}

// progressing asks both storages for progress: the watch caches share one
// requester for every resource.
type progressing struct {
	r    *routed
	base progressRequester
}

func (p *progressing) RequestProgress(ctx context.Context) error {
	_ = p.r.mem.RequestProgress(ctx)
	return p.base.RequestProgress(ctx)
}

// expiring is base's expiring view, routed the same way.
type expiring struct {
	r    *routed
	base storage.Expirer
}

func (e *expiring) Expiring(ttl time.Duration) storage.Storage {
	return Route(e.base.Expiring(ttl), e.r.prefix, e.r.mem)
}
