package watchcache

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

func TestStopEndsWatchesAndRestartsOnUse(t *testing.T) {
	st := newFakeStorage()
	cs := newTestCaches(t, st, Config{})
	const other = "/r/g/gadgets/"
	ctx := ctxFor(t)
	stopped, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := cs.Watch(ctx, other, engine.CacheWatchOptions{Prefix: other})
	if err != nil {
		t.Fatal(err)
	}
	first := cs.For(res)
	cs.Stop(res)
	if _, err := stopped.Next(ctx); !errors.Is(err, engine.ErrWatchClosed) {
		t.Fatalf("watch of the stopped cache: %v, want ErrWatchClosed", err)
	}
	if cs.For(res) == first {
		t.Error("the stopped cache is used again")
	}
	cs.Stop("/never/started/") // a no-op

	// The other resource's watch goes on.
	if _, err := st.Create(ctx, other+"ns/a", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, ctx, kept, 1); len(got) != 1 {
		t.Fatalf("kept watch: %v", got)
	}
	// A new watch of the stopped resource is served by a new cache.
	again, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
	if err != nil {
		t.Fatal(err)
	}
	write(t, st, "+ns/b")
	if got := collect(t, ctx, again, 1); len(got) != 1 {
		t.Fatalf("new watch: %v", got)
	}
}

// listGate holds the first list of a cache until the list's context
// ends, as etcd's does when the cache is stopped meanwhile.
type listGate struct {
	*fakeStorage
	once    sync.Once
	entered chan struct{}
}

func (g *listGate) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.entered)
		<-ctx.Done()
		return storage.ListResult{}, ctx.Err()
	}
	return g.fakeStorage.List(ctx, prefix, opts)
}

// TestStopBeforeFirstList: a cache stopped while its first list runs
// never becomes ready. The watch waiting for it is served by the next
// cache instead of waiting until its own context ends.
func TestStopBeforeFirstList(t *testing.T) {
	st := &listGate{fakeStorage: newFakeStorage(), entered: make(chan struct{})}
	cs := newTestCaches(t, st, Config{})
	ctx := ctxFor(t)
	type result struct {
		w   engine.CacheWatch
		err error
	}
	got := make(chan result, 1)
	go func() {
		w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res})
		got <- result{w, err}
	}()
	<-st.entered
	cs.Stop(res)
	r := <-got
	if r.err != nil {
		t.Fatalf("watch of a cache stopped before its first list: %v", r.err)
	}
	write(t, st.fakeStorage, "+ns/a")
	if got := collect(t, ctx, r.w, 1); len(got) != 1 {
		t.Fatalf("watch: %v", got)
	}
}
