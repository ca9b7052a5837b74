package etcdstorage_test

import (
	"context"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
)

// TestRequestProgress: a progress request on the embedded etcd reaches a
// watch of a prefix that saw none of the writes since, as a bookmark at
// etcd's current revision.
func TestRequestProgress(t *testing.T) {
	cli := etcdtest.Start(t)
	s := etcdstorage.New(cli)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rev, err := s.Create(ctx, "/quiet/a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	events := s.Watch(ctx, "/quiet/", rev)
	var last int64
	for i := range 3 {
		if last, err = s.Create(ctx, "/busy/"+string(rune('a'+i)), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	// etcd drops a request while the new watch catches up: ask until one
	// is answered.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := s.RequestProgress(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-events:
			if ev.Err != nil {
				t.Fatal(ev.Err)
			}
			if ev.Type != storage.EventBookmark || ev.Revision < last {
				t.Fatalf("event %+v, want a bookmark at >= %d", ev, last)
			}
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("no progress notification")
		}
	}
}
