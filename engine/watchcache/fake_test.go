package watchcache

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/specd-io/specd/engine"
)

// fakeStorage is an in-memory engine.Storage whose watch is fed by its own
// writes, for tests that need exact control of revisions. Like etcd, a
// watch from a past revision first replays what happened since.
type fakeStorage struct {
	mu       sync.Mutex
	rev      int64
	data     map[string]engine.KeyValue
	watchers []fakeWatch
	history  []engine.Event // every write, oldest first
	// compacted: the revisions before it are gone, as after etcd's
	// compaction at it.
	compacted int64
}

type fakeWatch struct {
	ctx    context.Context
	prefix string
	ch     chan engine.Event
}

var _ engine.Storage = (*fakeStorage)(nil)

func newFakeStorage() *fakeStorage { return &fakeStorage{data: map[string]engine.KeyValue{}} }

func (f *fakeStorage) emit(ev engine.Event) {
	if ev.Type != engine.EventBookmark {
		f.history = append(f.history, ev)
	}
	for _, w := range f.watchers {
		if (ev.Type == engine.EventBookmark || strings.HasPrefix(ev.Key, w.prefix)) && w.ctx.Err() == nil {
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
		return 0, engine.ErrKeyExists
	}
	f.rev++
	f.data[key] = engine.KeyValue{Key: key, Value: value, ModRevision: f.rev}
	f.emit(engine.Event{Type: engine.EventAdded, Key: key, Value: value, Revision: f.rev})
	return f.rev, nil
}

func (f *fakeStorage) Get(_ context.Context, key string) (engine.KeyValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kv, ok := f.data[key]
	if !ok {
		return kv, engine.ErrKeyNotFound
	}
	return kv, nil
}

func (f *fakeStorage) List(_ context.Context, prefix string, opts engine.ListOptions) (engine.ListResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, rev := f.data, f.rev
	if opts.Revision > 0 {
		switch {
		case opts.Revision < f.compacted:
			return engine.ListResult{}, fmt.Errorf("fake: list at %d: %w", opts.Revision, engine.ErrCompacted)
		case opts.Revision > f.rev:
			return engine.ListResult{}, fmt.Errorf("fake: list at %d: a future revision", opts.Revision)
		}
		data, rev = f.at(opts.Revision), opts.Revision
	}
	var items []engine.KeyValue
	for k, kv := range data {
		if strings.HasPrefix(k, prefix) {
			// A copy, as a real storage answers with fresh bytes.
			kv.Value = bytes.Clone(kv.Value)
			items = append(items, kv)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return engine.ListResult{Items: items, Revision: rev}, nil
}

// at is the data as it was at rev, replayed from the history.
func (f *fakeStorage) at(rev int64) map[string]engine.KeyValue {
	data := map[string]engine.KeyValue{}
	for _, ev := range f.history {
		if ev.Revision > rev {
			break
		}
		if ev.Type == engine.EventDeleted {
			delete(data, ev.Key)
			continue
		}
		data[ev.Key] = engine.KeyValue{Key: ev.Key, Value: ev.Value, ModRevision: ev.Revision}
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
		return 0, engine.ErrKeyNotFound
	}
	f.rev++
	f.data[key] = engine.KeyValue{Key: key, Value: value, ModRevision: f.rev}
	f.emit(engine.Event{Type: engine.EventModified, Key: key, Value: value, PrevValue: prev.Value, Revision: f.rev})
	return f.rev, nil
}

func (f *fakeStorage) Delete(_ context.Context, key string, _ int64) (engine.KeyValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, ok := f.data[key]
	if !ok {
		return prev, engine.ErrKeyNotFound
	}
	f.rev++
	delete(f.data, key)
	f.emit(engine.Event{Type: engine.EventDeleted, Key: key, Value: prev.Value, PrevValue: prev.Value, Revision: f.rev})
	return prev, nil
}

// Watch replays the history after after, then follows the writes.
func (f *fakeStorage) Watch(ctx context.Context, prefix string, after int64) <-chan engine.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan engine.Event, 1024)
	switch {
	case after > f.rev:
		ch <- engine.Event{Err: fmt.Errorf("fake: watch after %d, ahead of %d", after, f.rev)}
		close(ch)
		return ch
	case after > 0 && after < f.compacted:
		ch <- engine.Event{Err: fmt.Errorf("fake: watch after %d: %w", after, engine.ErrCompacted)}
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
	f.emit(engine.Event{Type: engine.EventBookmark, Revision: f.rev})
}
