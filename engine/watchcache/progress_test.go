package watchcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// progressStorage is a fakeStorage that answers progress requests as etcd
// does, with a bookmark at the current revision to every watch, unless it
// drops them (a watch still catching up) or refuses them (an old etcd).
type progressStorage struct {
	*fakeStorage
	requests atomic.Int64
	drop     atomic.Bool
	refuse   bool
}

func (p *progressStorage) RequestProgress(context.Context) error {
	p.requests.Add(1)
	if p.refuse {
		return fmt.Errorf("old etcd: %w", errors.ErrUnsupported)
	}
	if !p.drop.Load() {
		p.bookmark()
	}
	return nil
}

// elsewhere writes a key of another resource: storage's revision moves,
// the cache of res hears nothing.
func elsewhere(t *testing.T, st storage.Storage) int64 {
	t.Helper()
	rev, err := st.Create(context.Background(), fmt.Sprintf("/r/g/gadgets/ns/%d", time.Now().UnixNano()), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func consistent(rev int64) engine.CacheListOptions {
	return engine.CacheListOptions{Prefix: res, MinRevision: rev, Consistent: true}
}

// TestConsistentList: a consistent list of a resource that has not changed
// since storage's revision moved is served once a progress request has
// moved the cache there; a cache already there asks nothing.
func TestConsistentList(t *testing.T) {
	st := &progressStorage{fakeStorage: newFakeStorage()}
	write(t, st, "+ns/a")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	rev := elsewhere(t, st)
	got, err := cs.List(ctx, res, consistent(rev))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Revision < rev || st.requests.Load() == 0 {
		t.Fatalf("list %v at %d after %d requests, want a/1 at >= %d", got.Items, got.Revision, st.requests.Load(), rev)
	}
	before := st.requests.Load()
	if _, err := cs.List(ctx, res, consistent(rev)); err != nil {
		t.Fatal(err)
	}
	if st.requests.Load() != before {
		t.Fatal("a cache already at the revision asked for progress")
	}
	// A change of the resource itself moves the cache too.
	revs := write(t, st, "+ns/b")
	if got, err := cs.List(ctx, res, consistent(revs[0])); err != nil || len(got.Items) != 2 {
		t.Fatalf("after a write: %v %v", got.Items, err)
	}
}

// TestConsistentListRetries: etcd drops a progress request while a watch
// on the stream catches up; the cache asks again every progressInterval,
// and gives up (ErrCacheBehind: the list goes to storage) when ctx ends.
func TestConsistentListRetries(t *testing.T) {
	st := &progressStorage{fakeStorage: newFakeStorage()}
	cs := newTestCaches(t, st, Config{})
	if _, err := cs.List(ctxFor(t), res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	st.drop.Store(true)
	rev := elsewhere(t, st)
	// Counted, not timed: however slow the machine, the list keeps
	// asking while it waits, and ends when its context does.
	ctx, cancel := context.WithCancel(context.Background())
	listed := make(chan error, 1)
	go func() {
		_, err := cs.List(ctx, res, consistent(rev))
		listed <- err
	}()
	deadline := time.After(30 * time.Second)
	for st.requests.Load() < 3 {
		select {
		case err := <-listed:
			cancel()
			t.Fatalf("list with dropped requests ended after %d requests: %v", st.requests.Load(), err)
		case <-deadline:
			cancel()
			t.Fatalf("%d progress requests in 30 s, want one every %v", st.requests.Load(), progressInterval)
		case <-time.After(progressInterval / 4):
		}
	}
	cancel()
	if err := <-listed; !errors.Is(err, engine.ErrCacheBehind) {
		t.Fatalf("list with dropped requests, its context ended: %v, want ErrCacheBehind", err)
	}

	// Requests answered again: a waiting list is served at the next one.
	done := make(chan error, 1)
	go func() {
		_, err := cs.List(ctxFor(t), res, consistent(elsewhere(t, st)))
		done <- err
	}()
	time.Sleep(progressInterval / 2)
	st.drop.Store(false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the list still waits 30 s after progress requests are answered")
	}
}

// TestConsistentListUnsupported: a storage that refuses progress requests
// (an etcd with unordered notifications) or cannot make them leaves
// consistent lists to storage at once, unless the cache is already there.
func TestConsistentListUnsupported(t *testing.T) {
	tests := map[string]storage.Storage{
		"refused":        &progressStorage{fakeStorage: newFakeStorage(), refuse: true},
		"no such method": newFakeStorage(),
	}
	for name, st := range tests {
		t.Run(name, func(t *testing.T) {
			write(t, st, "+ns/a")
			cs := newTestCaches(t, st, Config{})
			ctx := ctxFor(t)
			if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
				t.Fatal(err)
			}
			if got, err := cs.List(ctx, res, consistent(1)); err != nil || len(got.Items) != 1 {
				t.Fatalf("a cache at the revision: %v %v", got.Items, err)
			}
			for range 2 {
				start := time.Now()
				_, err := cs.List(ctx, res, consistent(elsewhere(t, st)))
				if !errors.Is(err, engine.ErrCacheBehind) || time.Since(start) > time.Second {
					t.Fatalf("list: %v after %v, want ErrCacheBehind at once", err, time.Since(start))
				}
			}
			if ps, ok := st.(*progressStorage); ok && ps.requests.Load() != 1 {
				t.Fatalf("%d progress requests, want one: a refusal is final", ps.requests.Load())
			}
		})
	}
}

// TestConsistentListsShareRequests: lists waiting at once share the
// progress requests of one requester.
func TestConsistentListsShareRequests(t *testing.T) {
	st := &progressStorage{fakeStorage: newFakeStorage()}
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	other := "/r/g/gadgets/"
	for _, r := range []string{res, other} {
		if _, err := cs.List(ctx, r, engine.CacheListOptions{Prefix: r}); err != nil {
			t.Fatal(err)
		}
	}
	rev := elsewhere(t, st)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		r := res
		if i%2 == 1 {
			r = other
		}
		wg.Go(func() {
			_, err := cs.List(ctx, r, engine.CacheListOptions{Prefix: r, MinRevision: rev, Consistent: true})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := st.requests.Load(); n == 0 || n > 40 {
		t.Fatalf("%d progress requests for 40 lists", n)
	}
}
