package watchcache

import (
	"errors"
	"testing"

	"github.com/specd-io/specd/engine"
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
