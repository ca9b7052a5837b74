package watchcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

const res = "/r/g/widgets/"

func newTestCaches(t *testing.T, st storage.Storage, cfg Config) *Caches {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	cs := New(st, cfg)
	t.Cleanup(cs.Close)
	return cs
}

func ctxFor(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// write makes the changes named by ops on st: "+ns/name" creates,
// "~ns/name" updates, "-ns/name" deletes. It returns each write's revision.
func write(t *testing.T, st storage.Storage, ops ...string) []int64 {
	t.Helper()
	ctx := context.Background()
	var revs []int64
	for i, op := range ops {
		key, val := res+op[1:], fmt.Appendf(nil, `{"n":%d}`, i)
		var rev int64
		var err error
		switch op[0] {
		case '+':
			rev, err = st.Create(ctx, key, val)
		case '~':
			rev, err = st.Update(ctx, key, val, 0)
		case '-':
			var kv storage.KeyValue
			kv, err = st.Delete(ctx, key, 0)
			_ = kv
		}
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		revs = append(revs, rev)
	}
	return revs
}

// collect reads n events from w.
func collect(t *testing.T, ctx context.Context, w engine.CacheWatch, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		out = append(out, describe(ev))
	}
	return out
}

func describe(ev storage.Event) string {
	if ev.Type == storage.EventBookmark {
		return fmt.Sprintf("BOOKMARK@%d", ev.Revision)
	}
	return fmt.Sprintf("%s %s@%d", ev.Type, ev.Key[len(res):], ev.Revision)
}

func TestWatch(t *testing.T) {
	tests := map[string]struct {
		before  []string // writes before the watch starts
		after   int      // AfterRevision: index into before's revisions, -1 for 0
		prefix  string
		key     string
		initial bool
		during  []string // writes after it starts
		want    []string
		wantIni []string
	}{
		"from now": {
			before: []string{"+a/1"}, after: -1,
			during: []string{"+a/2", "~a/1", "-a/2"},
			want:   []string{"ADDED a/2@2", "MODIFIED a/1@3", "DELETED a/2@4"},
		},
		"from a past revision replays the window": {
			before: []string{"+a/1", "+a/2", "~a/1"}, after: 0,
			during: []string{"-a/1"},
			want:   []string{"ADDED a/2@2", "MODIFIED a/1@3", "DELETED a/1@4"},
		},
		"namespace prefix": {
			before: []string{"+a/1", "+b/1"}, after: 0, prefix: "a/",
			during: []string{"+b/2", "+a/2"},
			want:   []string{"ADDED a/2@4"},
		},
		"one key": {
			before: []string{"+a/1", "+a/10"}, after: -1, key: "a/1",
			during: []string{"~a/10", "~a/1", "-a/1"},
			want:   []string{"MODIFIED a/1@4", "DELETED a/1@5"},
		},
		"initial objects": {
			before: []string{"+a/2", "+a/1", "+b/1"}, after: -1, prefix: "a/", initial: true,
			during:  []string{"~a/1"},
			wantIni: []string{"a/1@2", "a/2@1"},
			want:    []string{"MODIFIED a/1@4"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := newFakeStorage()
			cs := newTestCaches(t, st, Config{})
			ctx := ctxFor(t)
			// Start the cache before the writes, so its window holds them.
			if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
				t.Fatal(err)
			}
			revs := write(t, st, tc.before...)
			if err := cs.For(res).WaitRevision(ctx, revs[len(revs)-1]); err != nil {
				t.Fatal(err)
			}
			opts := engine.CacheWatchOptions{Prefix: res + tc.prefix, Initial: tc.initial}
			if tc.key != "" {
				opts.Key = res + tc.key
			}
			if tc.after >= 0 {
				opts.AfterRevision = revs[tc.after]
			}
			w, err := cs.Watch(ctx, res, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			items, _ := w.Initial()
			var ini []string
			for _, kv := range items {
				ini = append(ini, fmt.Sprintf("%s@%d", kv.Key[len(res):], kv.ModRevision))
			}
			if !slices.Equal(ini, tc.wantIni) {
				t.Errorf("initial = %v, want %v", ini, tc.wantIni)
			}
			write(t, st, tc.during...)
			if got := collect(t, ctx, w, len(tc.want)); !slices.Equal(got, tc.want) {
				t.Errorf("events = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWatchExpired: a revision older than the window is an ExpiredError
// naming the oldest revision a watch may start after.
func TestWatchExpired(t *testing.T) {
	tests := map[string]struct {
		window, writes, after int
		wantOldest            int64 // 0: no error
	}{
		"inside the window":     {window: 5, writes: 8, after: 3},
		"at the window's start": {window: 5, writes: 8, after: 3},
		"before the window":     {window: 5, writes: 8, after: 2, wantOldest: 3},
		"window never filled":   {window: 50, writes: 8, after: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := newFakeStorage()
			cs := newTestCaches(t, st, Config{Window: tc.window})
			ctx := ctxFor(t)
			if _, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res}); err != nil {
				t.Fatal(err)
			}
			for i := range tc.writes {
				write(t, st, fmt.Sprintf("+a/%d", i))
			}
			if err := cs.For(res).WaitRevision(ctx, int64(tc.writes)); err != nil {
				t.Fatal(err)
			}
			w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, AfterRevision: int64(tc.after)})
			var expired *engine.ExpiredError
			if tc.wantOldest == 0 {
				if err != nil {
					t.Fatalf("watch after %d: %v", tc.after, err)
				}
				got := collect(t, ctx, w, tc.writes-tc.after)
				if got[0] != fmt.Sprintf("ADDED a/%d@%d", tc.after, tc.after+1) {
					t.Errorf("first event %s", got[0])
				}
				return
			}
			if !errors.As(err, &expired) || expired.Oldest != tc.wantOldest || !errors.Is(err, storage.ErrCompacted) {
				t.Fatalf("watch after %d: %v, want an ExpiredError with oldest %d", tc.after, err, tc.wantOldest)
			}
			if want := fmt.Sprintf("too old resource version: %d (%d)", tc.after, tc.wantOldest); err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}
}

// TestBookmarks: watchers that asked get bookmarks at the cache's
// revision, moved on by storage progress notifications too; others do not.
func TestBookmarks(t *testing.T) {
	st := newFakeStorage()
	cs := newTestCaches(t, st, Config{BookmarkInterval: 20 * time.Millisecond})
	ctx := ctxFor(t)
	with, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, Bookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	without, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	write(t, st, "+a/1")
	if got := collect(t, ctx, with, 2); !slices.Equal(got, []string{"ADDED a/1@1", "BOOKMARK@1"}) {
		t.Errorf("with bookmarks: %v", got)
	}
	// Another resource's write moves the revision; etcd reports it in a
	// progress notification.
	if _, err := st.Create(ctx, "/other/x", nil); err != nil {
		t.Fatal(err)
	}
	st.bookmark()
	for {
		ev, err := with.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Revision == 2 {
			break
		}
	}
	write(t, st, "~a/1")
	if got := collect(t, ctx, without, 2); !slices.Equal(got, []string{"ADDED a/1@1", "MODIFIED a/1@3"}) {
		t.Errorf("without bookmarks: %v", got)
	}
}

// TestSlowWatcherCutOff: a watcher whose buffer is full is cut off; it gets
// what it had buffered and then ErrWatchClosed, and the others get
// everything.
func TestSlowWatcherCutOff(t *testing.T) {
	st := newFakeStorage()
	cs := newTestCaches(t, st, Config{WatcherBuffer: 4})
	ctx := ctxFor(t)
	slow, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		write(t, st, fmt.Sprintf("+a/%d", i))
		ev, err := fast.Next(ctx)
		if err != nil || ev.Revision != int64(i+1) {
			t.Fatalf("fast watcher: event %d is %v, %v", i, describe(ev), err)
		}
	}
	var n int
	for {
		_, err := slow.Next(ctx)
		if errors.Is(err, engine.ErrWatchClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 4 {
		t.Errorf("slow watcher got %d events before it was cut off, want its buffer (4)", n)
	}
}

func TestList(t *testing.T) {
	st := newFakeStorage()
	write(t, st, "+b/2", "+a/1", "+b/1", "+c/1")
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	tests := map[string]struct {
		opts      engine.CacheListOptions
		want      []string
		remaining int64
		err       error
	}{
		"all":           {opts: engine.CacheListOptions{Prefix: res}, want: []string{"a/1", "b/1", "b/2", "c/1"}},
		"prefix":        {opts: engine.CacheListOptions{Prefix: res + "b/"}, want: []string{"b/1", "b/2"}},
		"limit":         {opts: engine.CacheListOptions{Prefix: res, Limit: 3}, want: []string{"a/1", "b/1", "b/2"}, remaining: 1},
		"none":          {opts: engine.CacheListOptions{Prefix: res + "d/"}},
		"at or after 4": {opts: engine.CacheListOptions{Prefix: res + "c/", MinRevision: 4}, want: []string{"c/1"}},
		"behind":        {opts: engine.CacheListOptions{Prefix: res, MinRevision: 5}, err: engine.ErrCacheBehind},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := cs.List(ctx, res, tc.opts)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			var keys []string
			for _, kv := range got.Items {
				keys = append(keys, kv.Key[len(res):])
			}
			if !slices.Equal(keys, tc.want) || got.Remaining != tc.remaining || got.More != (tc.remaining > 0) {
				t.Errorf("list = %v (remaining %d, more %v), want %v (remaining %d)", keys, got.Remaining, got.More, tc.want, tc.remaining)
			}
			if err == nil && got.Revision != 4 {
				t.Errorf("revision %d, want 4", got.Revision)
			}
		})
	}
}

// TestCacheResumesWatch: when the storage watch fails (a lost leader)
// the cache watches again after the last revision it has, and its
// watches go on: they miss nothing, and no client sees an error.
func TestCacheResumesWatch(t *testing.T) {
	st := &failingWatch{fakeStorage: newFakeStorage(), fail: make(chan struct{}), err: errors.New("lost leader")}
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	close(st.fail)
	if _, err := st.Create(ctx, res+"a", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	ev, err := w.Next(ctx)
	if err != nil || ev.Type != storage.EventAdded || ev.Key != res+"a" {
		t.Fatalf("Next after the storage watch failed: %+v, %v; want the ADDED event after it", ev, err)
	}
}

// TestCacheRestartEndsWatches: when the storage watch cannot go on (its
// revision is compacted) the cache lists again and ends its watches,
// whose clients cannot know what they missed.
func TestCacheRestartEndsWatches(t *testing.T) {
	st := &failingWatch{fakeStorage: newFakeStorage(), fail: make(chan struct{}), err: storage.ErrCompacted}
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	close(st.fail)
	if _, err := w.Next(ctx); !errors.Is(err, engine.ErrWatchClosed) {
		t.Fatalf("Next after the storage watch failed: %v, want ErrWatchClosed", err)
	}
}

// failingWatch's first watch fails with err when fail is closed.
type failingWatch struct {
	*fakeStorage
	fail   chan struct{}
	err    error
	failed bool
}

func (f *failingWatch) Watch(ctx context.Context, prefix string, after int64) <-chan storage.Event {
	if f.failed {
		return f.fakeStorage.Watch(ctx, prefix, after)
	}
	f.failed = true
	ch := make(chan storage.Event, 1)
	go func() {
		defer close(ch)
		select {
		case <-f.fail:
			ch <- storage.Event{Err: f.err}
		case <-ctx.Done():
		}
	}()
	return ch
}
