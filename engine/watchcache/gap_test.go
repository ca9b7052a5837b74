package watchcache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
)

// TestWatchFromBeforeTheCache: a list starts a cache at the current
// revision; a watch from an older one, which storage still has, gets every
// event since it (storage's, then the window's, then live ones) once,
// as from a cache that ran all along. 410 Expired when storage has
// compacted it, or the window has dropped events since the cache started.
func TestWatchFromBeforeTheCache(t *testing.T) {
	tests := map[string]struct {
		before  []string // writes before the list that starts the cache
		between []string // writes after it: the window holds them
		after   int64    // the watch's AfterRevision
		prefix  string
		key     string
		window  int
		compact int64 // storage compacted at this revision
		during  []string
		want    []string
		// wantOldest: an ExpiredError naming it.
		wantOldest int64
	}{
		"one namespace, another's write started it": {
			before: []string{"+a/1", "+b/1"}, after: 1, prefix: "a/",
			during: []string{"~a/1"},
			want:   []string{"MODIFIED a/1@3"},
		},
		"every namespace": {
			before: []string{"+a/1", "+b/1"}, after: 1,
			during: []string{"~a/1"},
			want:   []string{"ADDED b/1@2", "MODIFIED a/1@3"},
		},
		"storage, then the window, then live": {
			before: []string{"+a/1", "+a/2", "~a/1"}, between: []string{"-a/2", "+a/3"}, after: 1,
			during: []string{"+a/4"},
			want:   []string{"ADDED a/2@2", "MODIFIED a/1@3", "DELETED a/2@4", "ADDED a/3@5", "ADDED a/4@6"},
		},
		"one key": {
			before: []string{"+a/1", "+a/10", "~a/10", "~a/1"}, between: []string{"~a/10"}, after: 1, key: "a/1",
			during: []string{"-a/1"},
			want:   []string{"MODIFIED a/1@4", "DELETED a/1@6"},
		},
		"compacted: 410": {
			before: []string{"+a/1", "+a/2", "+a/3"}, compact: 2, after: 1,
			wantOldest: 3,
		},
		"the window dropped events: 410": {
			before: []string{"+a/1", "+a/2"}, between: []string{"+a/3", "+a/4", "+a/5"}, window: 2, after: 1,
			wantOldest: 3,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := newFakeStorage()
			cs := newTestCaches(t, st, Config{Window: tc.window})
			ctx := ctxFor(t)
			write(t, st, tc.before...)
			if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
				t.Fatal(err)
			}
			if revs := write(t, st, tc.between...); len(revs) > 0 {
				if err := cs.For(res).WaitRevision(ctx, revs[len(revs)-1]); err != nil {
					t.Fatal(err)
				}
			}
			if tc.compact > 0 {
				st.compact(tc.compact)
			}
			opts := engine.CacheWatchOptions{Prefix: res + tc.prefix, AfterRevision: tc.after}
			if tc.key != "" {
				opts.Key = res + tc.key
			}
			w, err := cs.Watch(ctx, res, opts)
			if tc.wantOldest > 0 {
				var expired *engine.ExpiredError
				if !errors.As(err, &expired) || expired.Revision != tc.after || expired.Oldest != tc.wantOldest {
					t.Fatalf("watch after %d: %v, want an ExpiredError with oldest %d", tc.after, err, tc.wantOldest)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			write(t, st, tc.during...)
			if got := collect(t, ctx, w, len(tc.want)); !slices.Equal(got, tc.want) {
				t.Errorf("events = %v, want %v", got, tc.want)
			}
			if w.Pending() {
				t.Error("more events than wanted")
			}
		})
	}
}

// passGap reads w until storage has passed its cache's start, with no
// event to read.
func passGap(t *testing.T, ctx context.Context, cw engine.CacheWatch) {
	t.Helper()
	w := cw.(*watcher)
	for !w.gap.passed {
		nctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		ev, err := w.Next(nctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			t.Fatal("the gap did not end")
		case err == nil:
			t.Fatalf("unexpected event %s", describe(ev))
		case !errors.Is(err, context.DeadlineExceeded):
			t.Fatal(err)
		}
	}
}

// TestGapEndsOnProgress: storage's progress notifications end the gap of
// a resource that does not change: its storage watch does not wait for a
// change to learn that it has passed the cache's start.
func TestGapEndsOnProgress(t *testing.T) {
	st := &progressStorage{fakeStorage: newFakeStorage()}
	write(t, st, "+a/1", "+a/2")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got := collect(t, ctx, w, 1); got[0] != "ADDED a/2@2" {
		t.Fatalf("events %v", got)
	}
	elsewhere(t, st)
	passGap(t, ctx, w)
	write(t, st, "+a/4")
	if got := collect(t, ctx, w, 1); got[0] != "ADDED a/4@4" || w.Pending() {
		t.Errorf("after the gap: %v, pending %v", got, w.Pending())
	}
}

// TestGapEndedByTheCache: a watch still reading storage ends when its
// cache ends it (here, stopped), as any watch of the cache does.
func TestGapEndedByTheCache(t *testing.T) {
	st := newFakeStorage()
	write(t, st, "+a/1", "+a/2", "+a/3")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs.Stop(res)
	for i := 0; ; i++ {
		_, err := w.Next(ctx)
		if errors.Is(err, engine.ErrWatchClosed) {
			break
		}
		if err != nil || i > 2 {
			t.Fatalf("event %d: %v, want the watch to end", i, err)
		}
	}
}

// TestWatchFromBeforeTheCacheEtcd is the same on etcd (whose updates
// need the revision: the writes here create): a list of one
// namespace starts the cache; watches from a revision read before get
// every event since, once, then live ones; a quiet one leaves storage on
// a progress notification; a compacted revision is 410 Expired.
func TestWatchFromBeforeTheCacheEtcd(t *testing.T) {
	cli := etcdtest.Start(t)
	st := etcdstorage.New(cli)
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	revs := write(t, st, "+a/1", "+b/1", "+b/2")
	if got, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res + "b/"}); err != nil || got.Revision != revs[2] {
		t.Fatalf("list at %d, %v; want at %d", got.Revision, err, revs[2])
	}
	watch := func(prefix string) engine.CacheWatch {
		w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res + prefix, AfterRevision: revs[0]})
		if err != nil {
			t.Fatalf("watch %q from %d: %v", prefix, revs[0], err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	one, all, quiet := watch("a/"), watch(""), watch("c/")
	// etcd answers no progress request while a watch waits for a
	// revision after its current one, as the cache's does until a write.
	revs = append(revs, elsewhere(t, st))
	passGap(t, ctx, quiet)
	revs = append(revs, write(t, st, "+a/2", "+b/3")...)
	at := func(s string, i int) string { return fmt.Sprintf("%s@%d", s, revs[i]) }
	if got, want := collect(t, ctx, one, 1), []string{at("ADDED a/2", 4)}; !slices.Equal(got, want) {
		t.Errorf("namespace a: %v, want %v", got, want)
	}
	want := []string{at("ADDED b/1", 1), at("ADDED b/2", 2), at("ADDED a/2", 4), at("ADDED b/3", 5)}
	if got := collect(t, ctx, all, 4); !slices.Equal(got, want) {
		t.Errorf("every namespace: %v, want %v", got, want)
	}
	revs = append(revs, write(t, st, "+c/1")...)
	if got := collect(t, ctx, quiet, 1); got[0] != at("ADDED c/1", 6) {
		t.Errorf("namespace c: %v", got)
	}
	if got := collect(t, ctx, all, 1); got[0] != at("ADDED c/1", 6) {
		t.Errorf("every namespace, then: %v", got)
	}
	if one.Pending() || all.Pending() || quiet.Pending() {
		t.Error("more events than written")
	}

	if _, err := cli.Compact(ctx, revs[4]); err != nil {
		t.Fatal(err)
	}
	_, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[0]})
	var expired *engine.ExpiredError
	if !errors.As(err, &expired) || expired.Oldest != revs[2] {
		t.Fatalf("watch from %d, compacted at %d: %v, want an ExpiredError with oldest %d", revs[0], revs[4], err, revs[2])
	}
	if _, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: revs[2]}); err != nil {
		t.Errorf("watch from the cache's start: %v", err)
	}
}

var _ storage.Storage = (*etcdstorage.Storage)(nil)
