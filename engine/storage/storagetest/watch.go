package storagetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/storage"
)

// watchTimeout bounds every wait for a watch event.
const watchTimeout = 10 * time.Second

// nextEvent returns the next event of ch, failing the test after
// watchTimeout or when ch closes.
func nextEvent(t *testing.T, ch <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(watchTimeout):
		t.Fatal("no watch event in time")
	}
	return storage.Event{}
}

// eventString is an event's type, key, value and revision, for comparing.
func eventString(ev storage.Event, p string) string {
	if ev.Err != nil {
		return "error: " + ev.Err.Error()
	}
	return fmt.Sprintf("%s %s=%s prev=%s @%d", ev.Type, ev.Key[len(p):], ev.Value, ev.PrevValue, ev.Revision)
}

// testWatch: create, update and delete as ADDED, MODIFIED and DELETED with
// previous values and the revisions the writes answered; keys outside the
// prefix are not seen.
func testWatch(t *testing.T, s storage.Storage, p string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := mustCreate(t, s, p+"other/x", "x")
	ch := s.Watch(ctx, p+"w/", start)
	r1 := mustCreate(t, s, p+"w/1", "a")
	mustCreate(t, s, p+"other/y", "y")
	r2, err := s.Update(ctx, p+"w/1", []byte("b"), r1)
	if err != nil {
		t.Fatal(err)
	}
	del, err := s.Delete(ctx, p+"w/1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if del.ModRevision != r2 {
		t.Fatalf("Delete answered ModRevision %d, want %d", del.ModRevision, r2)
	}
	want := []string{
		fmt.Sprintf("ADDED w/1=a prev= @%d", r1),
		fmt.Sprintf("MODIFIED w/1=b prev=a @%d", r2),
	}
	for i, w := range want {
		if got := eventString(nextEvent(t, ch), p); got != w {
			t.Fatalf("event %d = %q, want %q", i, got, w)
		}
	}
	ev := nextEvent(t, ch)
	if ev.Type != storage.EventDeleted || string(ev.Value) != "b" || string(ev.PrevValue) != "b" || ev.Revision <= r2 {
		t.Fatalf("delete event = %q, want DELETED w/1=b prev=b after %d", eventString(ev, p), r2)
	}
}

// testWatchFromRevision: a watch after a past revision replays what came
// after it, in order, and nothing before it.
func testWatchFromRevision(t *testing.T, s storage.Storage, p string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r1 := mustCreate(t, s, p+"h/1", "1")
	r2 := mustCreate(t, s, p+"h/2", "2")
	r3 := mustCreate(t, s, p+"h/3", "3")
	ch := s.Watch(ctx, p+"h/", r1)
	for i, w := range []string{
		fmt.Sprintf("ADDED h/2=2 prev= @%d", r2),
		fmt.Sprintf("ADDED h/3=3 prev= @%d", r3),
	} {
		if got := eventString(nextEvent(t, ch), p); got != w {
			t.Fatalf("event %d = %q, want %q", i, got, w)
		}
	}
	// From now: only what comes next.
	now := s.Watch(ctx, p+"h/", 0)
	time.Sleep(50 * time.Millisecond) // let the watch start before the write
	r4 := mustCreate(t, s, p+"h/4", "4")
	if got, w := eventString(nextEvent(t, now), p), fmt.Sprintf("ADDED h/4=4 prev= @%d", r4); got != w {
		t.Fatalf("watch from now: first event %q, want %q", got, w)
	}
}

// testWatchStops: the channel closes when the context ends.
func testWatchStops(t *testing.T, s storage.Storage, p string) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := s.Watch(ctx, p+"s/", 0)
	cancel()
	deadline := time.After(watchTimeout)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("watch channel still open after its context ended")
		}
	}
}

// testWatchCompacted: a watch from a compacted revision ends at once with
// ErrCompacted.
func testWatchCompacted(t *testing.T, s storage.Storage, p string, compact func(context.Context, int64) error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r1 := mustCreate(t, s, p+"c/1", "1")
	r2 := mustCreate(t, s, p+"c/2", "2")
	if err := compact(ctx, r2); err != nil {
		t.Fatal(err)
	}
	ch := s.Watch(ctx, p+"c/", r1-1)
	ev := nextEvent(t, ch)
	wantErr(t, "Watch from a compacted revision", ev.Err, storage.ErrCompacted)
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("watch sent an event after its error")
		}
	case <-time.After(watchTimeout):
		t.Fatal("watch channel still open after its error")
	}
}
