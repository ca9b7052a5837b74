package watchcache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// countingStorage counts the lists and watches a fakeStorage serves.
type countingStorage struct {
	*fakeStorage
	lists, watches atomic.Int64
}

func (c *countingStorage) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	c.lists.Add(1)
	return c.fakeStorage.List(ctx, prefix, opts)
}

func (c *countingStorage) Watch(ctx context.Context, prefix string, after int64) <-chan storage.Event {
	c.watches.Add(1)
	return c.fakeStorage.Watch(ctx, prefix, after)
}

func running(cs *Caches, resource string) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	_, ok := cs.caches[resource]
	return ok
}

func keys(items []storage.KeyValue) []string {
	var out []string
	for _, kv := range items {
		out = append(out, fmt.Sprintf("%s@%d=%s", kv.Key[len(res):], kv.ModRevision, kv.Value))
	}
	return out
}

// TestStartAtRevision: the first watch of a resource whose cache is not
// running starts it at the revision it asks for, and gets every change
// after it; the cache then holds the current objects.
func TestStartAtRevision(t *testing.T) {
	tests := map[string]struct {
		before  []string // writes before the first use
		after   int64    // the watch's AfterRevision
		compact int64    // storage compacted at this revision
		prefix  string
		during  []string // writes once the watch runs
		want    []string
		// wantOldest: an ExpiredError naming it.
		wantOldest int64
	}{
		"a past revision": {
			before: []string{"+a/1", "+a/2", "~a/1", "-a/2"}, after: 1,
			during: []string{"+a/3"},
			want:   []string{"ADDED a/2@2", "MODIFIED a/1@3", "DELETED a/2@4", "ADDED a/3@5"},
		},
		"the current revision": {
			before: []string{"+a/1"}, after: 1,
			during: []string{"+a/2"},
			want:   []string{"ADDED a/2@2"},
		},
		"one namespace": {
			before: []string{"+a/1", "+b/1", "~b/1", "~a/1"}, after: 1, prefix: "a/",
			during: []string{"-b/1", "-a/1"},
			want:   []string{"MODIFIED a/1@4", "DELETED a/1@6"},
		},
		"ahead of storage: the changes after it": {
			before: []string{"+a/1"}, after: 3,
			during: []string{"+a/2", "+a/3", "+a/4"},
			want:   []string{"ADDED a/4@4"},
		},
		"at the compacted revision": {
			before: []string{"+a/1", "+a/2", "+a/3"}, compact: 2, after: 2,
			during: []string{"~a/1"},
			want:   []string{"ADDED a/3@3", "MODIFIED a/1@4"},
		},
		"compacted: 410": {
			before: []string{"+a/1", "+a/2", "+a/3"}, compact: 3, after: 1,
			wantOldest: 3,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := newFakeStorage()
			write(t, st, tc.before...)
			if tc.compact > 0 {
				st.compact(tc.compact)
			}
			cs := newTestCaches(t, st, Config{})
			ctx := ctxFor(t)
			w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res + tc.prefix, AfterRevision: tc.after})
			if tc.wantOldest > 0 {
				var expired *engine.ExpiredError
				if !errors.As(err, &expired) || expired.Revision != tc.after || expired.Oldest != tc.wantOldest {
					t.Fatalf("watch after %d: %v, want an ExpiredError with oldest %d", tc.after, err, tc.wantOldest)
				}
				// The cache runs, at the current revision.
				if _, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: tc.wantOldest}); err != nil {
					t.Errorf("a watch from the current revision: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			revs := write(t, st, tc.during...)
			if got := collect(t, ctx, w, len(tc.want)); !slices.Equal(got, tc.want) {
				t.Errorf("events = %v, want %v", got, tc.want)
			}
			if w.Pending() {
				t.Error("more events than wanted")
			}
			if err := cs.For(res).WaitRevision(ctx, revs[len(revs)-1]); err != nil {
				t.Fatal(err)
			}
			got, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := st.List(ctx, res, storage.ListOptions{})
			if !slices.Equal(keys(got.Items), keys(want.Items)) || got.Revision != want.Revision {
				t.Errorf("cache holds %v at %d, storage %v at %d", keys(got.Items), got.Revision, keys(want.Items), want.Revision)
			}
		})
	}
}

// TestListStartsAtCurrentRevision: a list never needs an older revision:
// it starts the cache at the current one (one list, no replay). A watch
// from before it then reads the events in between from storage
// (TestWatchFromBeforeTheCache).
func TestListStartsAtCurrentRevision(t *testing.T) {
	st := &countingStorage{fakeStorage: newFakeStorage()}
	write(t, st, "+a/1", "+a/2")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	got, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res})
	if err != nil || got.Revision != 2 || len(got.Items) != 2 {
		t.Fatalf("list: %v at %d, %v; want a/1 and a/2 at 2", keys(got.Items), got.Revision, err)
	}
	if c := cs.For(res); c.window.oldest() != 2 || st.lists.Load() != 1 {
		t.Errorf("cache started at %d after %d lists, want at 2 after 1", c.window.oldest(), st.lists.Load())
	}
}

// TestConcurrentFirstUse: watches that start a resource's cache at once
// share one cache: one list, one storage watch, and every watch gets
// every change after the revision asked for.
func TestConcurrentFirstUse(t *testing.T) {
	st := &countingStorage{fakeStorage: newFakeStorage()}
	revs := write(t, st, "+a/1", "+a/2", "~a/1")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	const n = 8
	watches := make([]engine.CacheWatch, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[0]})
			if err != nil {
				errs <- err
				return
			}
			watches[i] = w
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	write(t, st, "-a/2")
	want := []string{"ADDED a/2@2", "MODIFIED a/1@3", "DELETED a/2@4"}
	for i, w := range watches {
		if got := collect(t, ctx, w, len(want)); !slices.Equal(got, want) {
			t.Errorf("watch %d: %v, want %v", i, got, want)
		}
	}
	if l, w := st.lists.Load(), st.watches.Load(); l != 1 || w != 1 {
		t.Errorf("%d lists and %d storage watches, want one of each", l, w)
	}
}

// TestIdleCacheStops: a cache that no watch holds and no request uses
// stops after IdleTimeout; one with a watch keeps running; a watch from a
// revision read before a cache stopped gets every change after it.
func TestIdleCacheStops(t *testing.T) {
	const idle = 40 * time.Millisecond
	st := newFakeStorage()
	cs := newTestCaches(t, st, Config{IdleTimeout: idle})
	ctx := ctxFor(t)
	waitStopped := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); running(cs, res); time.Sleep(idle / 4) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the cache still runs", what)
			}
		}
	}
	if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	waitStopped("after a list")

	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * idle)
	if !running(cs, res) {
		t.Fatal("a cache with a watch open stopped")
	}
	revs := write(t, st, "+a/1")
	if got := collect(t, ctx, w, 1); got[0] != "ADDED a/1@1" {
		t.Fatalf("watch: %v", got)
	}
	w.Stop()
	waitStopped("after its watch ended")

	write(t, st, "+a/2", "~a/1")
	again, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	if got := collect(t, ctx, again, 2); !slices.Equal(got, []string{"ADDED a/2@2", "MODIFIED a/1@3"}) {
		t.Errorf("watch after the restart: %v", got)
	}
}

// TestIdleTimeoutNegative: a negative IdleTimeout keeps caches running.
func TestIdleTimeoutNegative(t *testing.T) {
	cs := newTestCaches(t, newFakeStorage(), Config{IdleTimeout: -1})
	if _, err := cs.List(ctxFor(t), res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	if stopped := cs.idle(time.Now().Add(24 * time.Hour)); len(stopped) != 0 || !running(cs, res) {
		t.Errorf("stopped %v", stopped)
	}
}

// failingLists fails its first lists, as a storage out of reach.
type failingLists struct {
	*fakeStorage
	failures atomic.Int64
}

func (f *failingLists) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if f.failures.Add(-1) >= 0 {
		return storage.ListResult{}, errors.New("storage out of reach")
	}
	return f.fakeStorage.List(ctx, prefix, opts)
}

// TestStartAtRevisionAfterStorageErrors: a cache whose first lists fail
// keeps the revision its first watch asked for until one succeeds.
func TestStartAtRevisionAfterStorageErrors(t *testing.T) {
	st := &failingLists{fakeStorage: newFakeStorage()}
	revs := write(t, st.fakeStorage, "+a/1", "+a/2", "~a/1")
	st.failures.Store(3) // the first round (at the revision, then now) and one more
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got := collect(t, ctx, w, 2); !slices.Equal(got, []string{"ADDED a/2@2", "MODIFIED a/1@3"}) {
		t.Errorf("events = %v", got)
	}
}

// TestStopThenResume: after Restart (a schema reload), the next cache
// starts where the stopped one was, whatever use starts it: a watch that
// Restart ended goes on from its last event, also when a list came first.
func TestStopThenResume(t *testing.T) {
	for _, first := range []string{"list", "watch without a revision", "watch from later"} {
		t.Run(first, func(t *testing.T) {
			st := newFakeStorage()
			cs := newTestCaches(t, st, Config{})
			ctx := ctxFor(t)
			w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
			if err != nil {
				t.Fatal(err)
			}
			revs := write(t, st, "+a/1", "+a/2")
			if got := collect(t, ctx, w, 2); len(got) != 2 {
				t.Fatalf("before the stop: %v", got)
			}
			cs.Restart(res)
			write(t, st, "~a/1", "+a/3")
			switch first {
			case "list":
				if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
					t.Fatal(err)
				}
			case "watch without a revision":
				other, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
				if err != nil {
					t.Fatal(err)
				}
				defer other.Stop()
			case "watch from later":
				other, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[1] + 1})
				if err != nil {
					t.Fatal(err)
				}
				defer other.Stop()
			}
			again, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[1]})
			if err != nil {
				t.Fatalf("watch again from the last event: %v", err)
			}
			defer again.Stop()
			if got := collect(t, ctx, again, 2); !slices.Equal(got, []string{"MODIFIED a/1@3", "ADDED a/3@4"}) {
				t.Errorf("watch again from %d: %v", revs[1], got)
			}
		})
	}
}

// TestStopDoesNotResume: after Stop (the resource is gone), a list starts
// the next cache at the current revision, as a first use does.
func TestStopDoesNotResume(t *testing.T) {
	st := newFakeStorage()
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	revs := write(t, st, "+a/1")
	if err := cs.get(res, 0).WaitRevision(ctx, revs[0]); err != nil {
		t.Fatal(err)
	}
	cs.Stop(res)
	write(t, st, "+a/2")
	got, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	if oldest := cs.For(res).window.oldest(); oldest != got.Revision || oldest == revs[0] {
		t.Errorf("after a Stop, a list at %d started the next cache at %d, want there", got.Revision, oldest)
	}
}
