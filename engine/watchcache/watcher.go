package watchcache

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// watcher is one watch on a Cache.
type watcher struct {
	cache     *Cache
	prefix    string
	key       string
	bookmarks bool

	initial    []storage.KeyValue
	initialRev int64
	// backlog is the window's events the watch starts with.
	backlog []*storage.Event
	// skipTo: events up to it are not sent.
	skipTo int64
	// gap, when set, comes before the backlog: the events storage has
	// from before the cache started (gap.go).
	gap *gap
	// ended is closed when the cache ends the watch, for a reader still
	// in the gap; nil without one.
	ended chan struct{}
	// ch gets the live events; the cache closes it to end the watch.
	ch chan *storage.Event
}

var _ engine.CacheWatch = (*watcher)(nil)

// wants reports whether key is one the watcher selected.
func (w *watcher) wants(key string) bool {
	if w.key != "" {
		return key == w.key
	}
	return strings.HasPrefix(key, w.prefix)
}

func (w *watcher) Initial() ([]storage.KeyValue, int64) { return w.initial, w.initialRev }

func (w *watcher) Next(ctx context.Context) (storage.Event, error) {
	if w.gap != nil && !w.gap.passed {
		ev, ok, err := w.fromGap(ctx)
		if err != nil || ok {
			return ev, err
		}
	}
	for {
		var e *storage.Event
		if len(w.backlog) > 0 {
			e, w.backlog = w.backlog[0], w.backlog[1:]
		} else {
			var ok bool
			select {
			case e, ok = <-w.ch:
				if !ok {
					return storage.Event{}, engine.ErrWatchClosed
				}
			case <-ctx.Done():
				return storage.Event{}, ctx.Err()
			}
		}
		if e.Revision <= w.skipTo {
			continue
		}
		return *e, nil
	}
}

func (w *watcher) Pending() bool {
	if w.gap != nil && !w.gap.passed {
		return len(w.gap.events) > 0
	}
	return len(w.backlog) > 0 || len(w.ch) > 0
}

func (w *watcher) Stop() {
	c := w.cache
	c.mu.Lock()
	c.drop(w)
	c.mu.Unlock()
	if w.gap != nil {
		w.gap.close()
	}
}
