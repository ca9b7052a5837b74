package memstorage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/memstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/storage/storagetest"
)

func TestConformance(t *testing.T) {
	var s *memstorage.Storage
	storagetest.Run(t, storagetest.Config{
		New: func(t *testing.T) (storage.Storage, string) {
			s = memstorage.New(0)
			return s, "/t/"
		},
		Compact: func(ctx context.Context, rev int64) error { return s.Compact(ctx, rev) },
	})
}

// TestRoutedConformance runs the suite on the keys Route sends to memory.
func TestRoutedConformance(t *testing.T) {
	var s *memstorage.Storage
	storagetest.Run(t, storagetest.Config{
		New: func(t *testing.T) (storage.Storage, string) {
			s = memstorage.New(0)
			return memstorage.Route(memstorage.New(0), "/specd/status.specd.io/", s), "/specd/status.specd.io/"
		},
		Compact: func(ctx context.Context, rev int64) error { return s.Compact(ctx, rev) },
	})
}

// TestRevisionsStartAtTheClock: a resourceVersion from another process
// (another replica, or this one before a restart) is before the window
// of a Storage made later, so a client lists again instead of being sent
// another process's history.
func TestRevisionsStartAtTheClock(t *testing.T) {
	ctx := context.Background()
	first := memstorage.New(0)
	rev, err := first.Create(ctx, "/k/a", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	later := memstorage.New(0)
	if _, err := later.List(ctx, "/k/", storage.ListOptions{Revision: rev}); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("list of a later Storage at another's revision: %v, want ErrCompacted", err)
	}
	if _, err := first.List(ctx, "/k/", storage.ListOptions{Revision: rev + 1000}); !errors.Is(err, storage.ErrFutureRevision) {
		t.Fatalf("list at a revision not reached: %v, want ErrFutureRevision", err)
	}
}

// TestWindow: writes beyond the window are forgotten; a watch from
// before it ends with ErrCompacted, one inside it replays.
func TestWindow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := memstorage.New(3)
	var revs []int64
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		rev, err := s.Create(ctx, "/w/"+k, []byte(k))
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	ev := <-s.Watch(ctx, "/w/", revs[0])
	if !errors.Is(ev.Err, storage.ErrCompacted) {
		t.Fatalf("watch from before the window: %+v, want ErrCompacted", ev)
	}
	ch := s.Watch(ctx, "/w/", revs[2])
	for _, want := range []string{"/w/d", "/w/e"} {
		if ev := <-ch; ev.Key != want || ev.Type != storage.EventAdded {
			t.Fatalf("replayed %+v, want ADDED %s", ev, want)
		}
	}
	res, err := s.List(ctx, "/w/", storage.ListOptions{Revision: revs[2]})
	if err != nil || len(res.Items) != 3 {
		t.Fatalf("list at the window's start: %+v, %v; want a, b, c", res, err)
	}
}

// TestProgress: a progress request sends each watch a bookmark at the
// current revision after the events before it.
func TestProgress(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := memstorage.New(0)
	ch := s.Watch(ctx, "/p/", 0)
	rev, err := s.Create(ctx, "/other/x", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-ch:
		if ev.Type != storage.EventBookmark || ev.Revision != rev {
			t.Fatalf("event %+v, want a bookmark at %d", ev, rev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no bookmark")
	}
}

// TestRouteSplitsKeys: keys under the prefix are in memory, the others
// in base; progress requests reach both.
func TestRouteSplitsKeys(t *testing.T) {
	ctx := context.Background()
	base, mem := memstorage.New(0), memstorage.New(0)
	r := memstorage.Route(base, "/specd/status.specd.io/", mem)
	if _, err := r.Create(ctx, "/specd/status.specd.io/plugins/a", []byte("m")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, "/specd/shop.example.com/widgets/default/a", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Get(ctx, "/specd/status.specd.io/plugins/a"); err != nil {
		t.Fatalf("the status key is not in memory: %v", err)
	}
	if _, err := base.Get(ctx, "/specd/shop.example.com/widgets/default/a"); err != nil {
		t.Fatalf("the other key is not in base: %v", err)
	}
	if _, err := mem.Get(ctx, "/specd/shop.example.com/widgets/default/a"); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Fatalf("the other key is in memory too: %v", err)
	}
	if _, ok := r.(interface{ RequestProgress(context.Context) error }); !ok {
		t.Fatal("Route on a base that requests progress cannot")
	}
	if _, ok := r.(storage.Expirer); ok {
		t.Fatal("Route on a base that cannot expire keys claims it can")
	}
}
