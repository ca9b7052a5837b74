package watchcache

import "github.com/specd-io/specd/engine"

// window is a ring of the most recent events.
type window struct {
	ring  []*engine.Event
	start int // index of the oldest event
	n     int
	// after: every event after this revision is in the ring.
	after int64
}

func newWindow(size int) window { return window{ring: make([]*engine.Event, size)} }

// reset empties the window at rev.
func (w *window) reset(rev int64) {
	clear(w.ring)
	w.start, w.n, w.after = 0, 0, rev
}

// push adds e, dropping the oldest event when full.
func (w *window) push(e *engine.Event) {
	if w.n == len(w.ring) {
		w.after = w.ring[w.start].Revision
		w.ring[w.start] = e
		w.start = (w.start + 1) % len(w.ring)
		return
	}
	w.ring[(w.start+w.n)%len(w.ring)] = e
	w.n++
}

// oldest is the oldest revision a watch can start after.
func (w *window) oldest() int64 { return w.after }

// since returns the events after rev that keep selects, oldest first.
func (w *window) since(rev int64, keep func(key string) bool) []*engine.Event {
	var out []*engine.Event
	for i := range w.n {
		e := w.ring[(w.start+i)%len(w.ring)]
		if e.Revision > rev && keep(e.Key) {
			out = append(out, e)
		}
	}
	return out
}
