package memstorage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/specd-io/specd/engine/storage"
)

// DefaultWindow is how many past writes a Storage keeps for lists at a
// past revision and watches from one.
const DefaultWindow = 4096

// Storage is a storage.Storage in memory. It is safe for concurrent use;
// a write never waits for a watcher.
type Storage struct {
	window int

	mu   sync.Mutex
	rev  int64
	data map[string]storage.KeyValue
	// history are the last writes, oldest first; compacted is the
	// revision before the oldest that a list or watch may start at.
	history   []change
	compacted int64
	// changed is closed and replaced at every write and progress
	// request, waking the watches.
	changed  chan struct{}
	progress uint64
}

// change is one write and what it replaced, so that a list at a past
// revision can undo it.
type change struct {
	ev   storage.Event
	prev *storage.KeyValue // nil for a create
}

var _ storage.Storage = (*Storage)(nil)

// New returns an empty Storage whose revisions start at now, keeping
// window past writes (DefaultWindow when 0).
func New(window int) *Storage {
	if window <= 0 {
		window = DefaultWindow
	}
	start := time.Now().UnixMicro()
	return &Storage{window: window, rev: start, compacted: start,
		data: map[string]storage.KeyValue{}, changed: make(chan struct{})}
}

// Create implements storage.Storage.
func (s *Storage) Create(_ context.Context, key string, value []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.data[key]; ok {
		return 0, fmt.Errorf("memstorage: create %s: %w", key, storage.ErrKeyExists)
	}
	s.rev++
	kv := storage.KeyValue{Key: key, Value: clone(value), ModRevision: s.rev}
	s.data[key] = kv
	s.record(change{ev: storage.Event{Type: storage.EventAdded, Key: key, Value: kv.Value, Revision: s.rev}})
	return s.rev, nil
}

// Get implements storage.Storage.
func (s *Storage) Get(_ context.Context, key string) (storage.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kv, ok := s.data[key]
	if !ok {
		return kv, fmt.Errorf("memstorage: get %s: %w", key, storage.ErrKeyNotFound)
	}
	return kv, nil
}

// Update implements storage.Storage.
func (s *Storage) Update(_ context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.data[key]
	if !ok {
		return 0, fmt.Errorf("memstorage: update %s: %w", key, storage.ErrKeyNotFound)
	}
	if old.ModRevision != expectedRevision {
		return 0, fmt.Errorf("memstorage: update %s at %d (now %d): %w", key, expectedRevision, old.ModRevision, storage.ErrConflict)
	}
	s.rev++
	kv := storage.KeyValue{Key: key, Value: clone(value), ModRevision: s.rev}
	s.data[key] = kv
	s.record(change{ev: storage.Event{Type: storage.EventModified, Key: key, Value: kv.Value, PrevValue: old.Value, Revision: s.rev}, prev: &old})
	return s.rev, nil
}

// Delete implements storage.Storage.
func (s *Storage) Delete(_ context.Context, key string, expectedRevision int64) (storage.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.data[key]
	if !ok {
		return old, fmt.Errorf("memstorage: delete %s: %w", key, storage.ErrKeyNotFound)
	}
	if expectedRevision > 0 && old.ModRevision != expectedRevision {
		return storage.KeyValue{}, fmt.Errorf("memstorage: delete %s at %d (now %d): %w", key, expectedRevision, old.ModRevision, storage.ErrConflict)
	}
	s.rev++
	delete(s.data, key)
	s.record(change{ev: storage.Event{Type: storage.EventDeleted, Key: key, Value: old.Value, PrevValue: old.Value, Revision: s.rev}, prev: &old})
	return old, nil
}

// record keeps c in the window and wakes the watches; under s.mu.
func (s *Storage) record(c change) {
	s.history = append(s.history, c)
	if over := len(s.history) - s.window; over > 0 {
		s.compacted = s.history[over-1].ev.Revision
		// Dropped from the front, not copied to a new slice: a copy of
		// the whole window at every write was most of what a busy
		// status.specd.io cost. The cleared entries let their values go;
		// append moves the window to a new array once the old one is
		// used up, which copies it once per a quarter window or so.
		clear(s.history[:over])
		s.history = s.history[over:]
	}
	s.wake()
}

func (s *Storage) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Compact forgets the writes up to revision: a list at or a watch from
// before it gets ErrCompacted.
func (s *Storage) Compact(_ context.Context, revision int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if revision <= s.compacted {
		return nil
	}
	i := sort.Search(len(s.history), func(i int) bool { return s.history[i].ev.Revision > revision })
	s.history = append(s.history[:0:0], s.history[i:]...)
	s.compacted = min(revision, s.rev)
	return nil
}

// List implements storage.Storage.
func (s *Storage) List(_ context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if opts.StartKey != "" && !strings.HasPrefix(opts.StartKey, prefix) {
		return storage.ListResult{}, fmt.Errorf("memstorage: list %s from %s: the start key is not under the prefix", prefix, opts.StartKey)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.rev
	if opts.Revision > 0 {
		at = opts.Revision
	}
	items, err := s.snapshot(prefix, at)
	if err != nil {
		return storage.ListResult{}, err
	}
	return page(items, opts, at), nil
}

// snapshot is every value under prefix at revision at, sorted by key;
// under s.mu.
func (s *Storage) snapshot(prefix string, at int64) ([]storage.KeyValue, error) {
	switch {
	case at > s.rev:
		return nil, &storage.RevisionError{Requested: at, Current: s.rev}
	case at < s.compacted:
		return nil, fmt.Errorf("memstorage: list %s at %d (compacted at %d): %w", prefix, at, s.compacted, storage.ErrCompacted)
	}
	view := map[string]storage.KeyValue{}
	for k, kv := range s.data {
		if strings.HasPrefix(k, prefix) {
			view[k] = kv
		}
	}
	for i := len(s.history) - 1; i >= 0 && s.history[i].ev.Revision > at; i-- {
		c := s.history[i]
		if !strings.HasPrefix(c.ev.Key, prefix) {
			continue
		}
		if c.prev == nil {
			delete(view, c.ev.Key)
		} else {
			view[c.ev.Key] = *c.prev
		}
	}
	items := make([]storage.KeyValue, 0, len(view))
	for _, kv := range view {
		items = append(items, kv)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return items, nil
}

// page is the part of items opts asks for.
func page(items []storage.KeyValue, opts storage.ListOptions, at int64) storage.ListResult {
	if opts.StartKey != "" {
		i := sort.Search(len(items), func(i int) bool { return items[i].Key >= opts.StartKey })
		items = items[i:]
	}
	res := storage.ListResult{Items: items, Revision: at}
	if opts.Limit > 0 && int64(len(items)) > opts.Limit {
		res.Items, res.More, res.Remaining = items[:opts.Limit], true, int64(len(items))-opts.Limit
	}
	return res
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
