package watchcache

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/specd-io/specd/engine/storage"
)

func revisions(evs []*storage.Event) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.Revision)
	}
	return out
}

func all(string) bool { return true }

// TestWindowBoundedByBytes: large events push the oldest out before the
// count is reached, the newest stays whatever its size, and a watch from
// before what is held is then too old.
func TestWindowBoundedByBytes(t *testing.T) {
	w := newWindow(100, 250)
	w.reset(10)
	for rev := int64(11); rev <= 14; rev++ {
		w.push(&storage.Event{Key: "k", Revision: rev, Value: bytes.Repeat([]byte("x"), 60), PrevValue: bytes.Repeat([]byte("y"), 40)})
	}
	// 100 bytes each: two fit in 250.
	if got := revisions(w.since(0, all)); !slices.Equal(got, []int64{13, 14}) {
		t.Fatalf("held %v, want [13 14]", got)
	}
	if w.oldest() != 12 || !w.dropped() || w.bytes != 200 {
		t.Errorf("oldest %d, dropped %v, bytes %d; want 12, true, 200", w.oldest(), w.dropped(), w.bytes)
	}
	w.push(&storage.Event{Key: "k", Revision: 15, Value: bytes.Repeat([]byte("z"), 1000)})
	if got := revisions(w.since(0, all)); !slices.Equal(got, []int64{15}) || w.oldest() != 14 {
		t.Errorf("after an event over the bound: held %v, oldest %d; want [15], 14", got, w.oldest())
	}
}

// TestWindowBoundedByCount: small events are bounded by the count, and
// the slice behind the queue does not grow with the events pushed.
func TestWindowBoundedByCount(t *testing.T) {
	w := newWindow(3, 1<<20)
	w.reset(0)
	for rev := int64(1); rev <= 1000; rev++ {
		w.push(&storage.Event{Key: fmt.Sprint(rev), Revision: rev, Value: []byte("v")})
	}
	if got := revisions(w.since(996, all)); !slices.Equal(got, []int64{998, 999, 1000}) {
		t.Fatalf("since 996: %v", got)
	}
	if w.held() != 3 || w.oldest() != 997 || cap(w.events) > 16 {
		t.Errorf("held %d, oldest %d, cap %d; want 3, 997, small", w.held(), w.oldest(), cap(w.events))
	}
	w.reset(2000)
	if w.held() != 0 || w.bytes != 0 || w.dropped() {
		t.Errorf("after reset: held %d, bytes %d, dropped %v", w.held(), w.bytes, w.dropped())
	}
}
