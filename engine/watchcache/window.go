package watchcache

import (
	"github.com/specd-io/specd/engine/storage"
)

// window is a ring of the most recent events. It grows to its size as
// events come, so that the cache of a quiet resource costs little.
type window struct {
	ring  []*storage.Event
	size  int
	start int // index of the oldest event once the ring is full
	// after: every event after this revision is in the ring.
	after int64
	// base is the revision of the last reset: the cache's list.
	base int64
}

func newWindow(size int) window { return window{size: size} }

// reset empties the window at rev.
func (w *window) reset(rev int64) {
	clear(w.ring)
	w.ring, w.start, w.after, w.base = w.ring[:0], 0, rev, rev
}

// push adds e, dropping the oldest event when full.
func (w *window) push(e *storage.Event) {
	if len(w.ring) < w.size {
		w.ring = append(w.ring, e)
		return
	}
	w.after = w.ring[w.start].Revision
	w.ring[w.start] = e
	w.start = (w.start + 1) % len(w.ring)
}

// oldest is the oldest revision a watch can start after.
func (w *window) oldest() int64 { return w.after }

// dropped reports whether the window has dropped an event: a watch from
// before oldest is then too old, as it would be for a cache that ran all
// along. Until then oldest is only where the cache started.
func (w *window) dropped() bool { return w.after > w.base }

// since returns the events after rev that keep selects, oldest first.
func (w *window) since(rev int64, keep func(key string) bool) []*storage.Event {
	var out []*storage.Event
	for i := range w.ring {
		e := w.ring[(w.start+i)%len(w.ring)]
		if e.Revision > rev && keep(e.Key) {
			out = append(out, e)
		}
	}
	return out
}
