package watchcache

import (
	"github.com/specd-io/specd/engine/storage"
)

// window is a queue of the most recent events, bounded by count and by
// bytes. It grows as events come, so that the cache of a quiet resource
// costs little. The byte bound matters for resources whose objects are
// large and rewritten often (an aggregated ClusterRole that lists every
// resource grows with each CRD): a thousand versions of them would
// otherwise be kept for watches that may never ask.
type window struct {
	events []*storage.Event // events[head:] are held, oldest first
	head   int
	size   int
	// maxBytes bounds the bytes of the held events' values; the newest
	// event is held whatever its size.
	maxBytes, bytes int
	// after: every event after this revision is held.
	after int64
	// base is the revision of the last reset: the cache's list.
	base int64
}

func newWindow(size, maxBytes int) window { return window{size: size, maxBytes: maxBytes} }

// reset empties the window at rev.
func (w *window) reset(rev int64) {
	clear(w.events)
	w.events, w.head, w.bytes, w.after, w.base = w.events[:0], 0, 0, rev, rev
}

// push adds e, dropping the oldest events while the window is over
// either bound.
func (w *window) push(e *storage.Event) {
	w.events = append(w.events, e)
	w.bytes += eventBytes(e)
	for w.held() > w.size || w.bytes > w.maxBytes && w.held() > 1 {
		w.dropOldest()
	}
}

func (w *window) held() int { return len(w.events) - w.head }

// dropOldest forgets the oldest event, and moves the held ones to the
// front once half the slice is spent, so that it does not grow for ever.
func (w *window) dropOldest() {
	e := w.events[w.head]
	w.events[w.head] = nil
	w.head++
	w.bytes -= eventBytes(e)
	w.after = e.Revision
	if w.head > len(w.events)/2 {
		n := copy(w.events, w.events[w.head:])
		clear(w.events[n:])
		w.events, w.head = w.events[:n], 0
	}
}

// eventBytes is what an event holds that grows with its object.
func eventBytes(e *storage.Event) int { return len(e.Value) + len(e.PrevValue) }

// oldest is the oldest revision a watch can start after.
func (w *window) oldest() int64 { return w.after }

// dropped reports whether the window has dropped an event: a watch from
// before oldest is then too old, as it would be for a cache that ran all
// along. Until then oldest is only where the cache started.
func (w *window) dropped() bool { return w.after > w.base }

// since returns the events after rev that keep selects, oldest first.
func (w *window) since(rev int64, keep func(key string) bool) []*storage.Event {
	var out []*storage.Event
	for _, e := range w.events[w.head:] {
		if e.Revision > rev && keep(e.Key) {
			out = append(out, e)
		}
	}
	return out
}
