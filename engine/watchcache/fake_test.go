package watchcache

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/specd-io/specd/engine/storage"
)

// fakeStorage is an in-memory storage.Storage whose watch is fed by its own
// writes, for tests that need exact control of revisions. Like etcd, a
// watch from a past revision first replays what happened since.
type fakeStorage struct {
	mu       sync.Mutex
	rev      int64
	data     map[string]storage.KeyValue
	watchers []fakeWatch
	history  []storage.Event // every write, oldest first
	// compacted: the revisions before it are gone, as after etcd's
	// compaction at it.
	compacted int64
}

type fakeWatch struct {
	ctx    context.Context
	prefix string
	ch     chan storage.Event
}

var _ storage.Storage = (*fakeStorage)(nil)

func newFakeStorage() *fakeStorage { return &fakeStorage{data: map[string]storage.KeyValue{}} }

func (f *fakeStorage) emit(ev storage.Event) {
	if ev.Type != storage.EventBookmark {
		f.history = append(f.history, ev)
	}
	for _, w := range f.watchers {
		if (ev.Type == storage.EventBookmark || strings.HasPrefix(ev.Key, w.prefix)) && w.ctx.Err() == nil {
			select {
			case w.ch <- ev:
			case <-w.ctx.Done():
			}
		}
	}
}

func (f *fakeStorage) Create(_ context.Context, key string, value []byte) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.data[key]; ok {
		return 0, storage.ErrKeyExists
	}
	f.rev++
	f.data[key] = storage.KeyValue{Key: key, Value: value, ModRevision: f.rev}
	f.emit(storage.Event{Type: storage.EventAdded, Key: key, Value: value, Revision: f.rev})
	return f.rev, nil
}

func (f *fakeStorage) Get(_ context.Context, key string) (storage.KeyValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kv, ok := f.data[key]
	if !ok {
		return kv, storage.ErrKeyNotFound
	}
	return kv, nil
}

func (f *fakeStorage) List(_ context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, rev := f.data, f.rev
	if opts.Revision > 0 {
		switch {
		case opts.Revision < f.compacted:
			return storage.ListResult{}, fmt.Errorf("fake: list at %d: %w", opts.Revision, storage.ErrCompacted)
		case opts.Revision > f.rev:
			return storage.ListResult{}, fmt.Errorf("fake: list at %d: a future revision", opts.Revision)
		}
		data, rev = f.at(opts.Revision), opts.Revision
	}
	var items []storage.KeyValue
	for k, kv := range data {
		if strings.HasPrefix(k, prefix) {
			// A copy, as a real storage answers with fresh bytes.
			kv.Value = bytes.Clone(kv.Value)
			items = append(items, kv)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return storage.ListResult{Items: items, Revision: rev}, nil
}

// at is the data as it was at rev, replayed from the history.
func (f *fakeStorage) at(rev int64) map[string]storage.KeyValue {
	data := map[string]storage.KeyValue{}
	for _, ev := range f.history {
		if ev.Revision > rev {
			break
		}
		if ev.Type == storage.EventDeleted {
			delete(data, ev.Key)
			continue
		}
		data[ev.Key] = storage.KeyValue{Key: ev.Key, Value: ev.Value, ModRevision: ev.Revision}
	}
	return data
}

// compact forgets the revisions before rev.
func (f *fakeStorage) compact(rev int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compacted = rev
}

func (f *fakeStorage) Update(_ context.Context, key string, value []byte, _ int64) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, ok := f.data[key]
	if !ok {
		return 0, storage.ErrKeyNotFound
	}
	f.rev++
	f.data[key] = storage.KeyValue{Key: key, Value: value, ModRevision: f.rev}
	f.emit(storage.Event{Type: storage.EventModified, Key: key, Value: value, PrevValue: prev.Value, Revision: f.rev})
	return f.rev, nil
}

func (f *fakeStorage) Delete(_ context.Context, key string, _ int64) (storage.KeyValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, ok := f.data[key]
	if !ok {
		return prev, storage.ErrKeyNotFound
	}
	f.rev++
	delete(f.data, key)
	f.emit(storage.Event{Type: storage.EventDeleted, Key: key, Value: prev.Value, PrevValue: prev.Value, Revision: f.rev})
	return prev, nil
}

// Watch replays the history after after, then follows the writes.
func (f *fakeStorage) Watch(ctx context.Context, prefix string, after int64) <-chan storage.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan storage.Event, 1024)
	switch {
	case after > f.rev:
		ch <- storage.Event{Err: fmt.Errorf("fake: watch after %d, ahead of %d", after, f.rev)}
		close(ch)
		return ch
	case after > 0 && after < f.compacted:
		ch <- storage.Event{Err: fmt.Errorf("fake: watch after %d: %w", after, storage.ErrCompacted)}
		close(ch)
		return ch
	}
	for _, ev := range f.history {
		if ev.Revision > after && strings.HasPrefix(ev.Key, prefix) {
			ch <- ev
		}
	}
	f.watchers = append(f.watchers, fakeWatch{ctx: ctx, prefix: prefix, ch: ch})
	return ch
}

// bookmark sends a progress notification at the current revision.
func (f *fakeStorage) bookmark() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.emit(storage.Event{Type: storage.EventBookmark, Revision: f.rev})
}
