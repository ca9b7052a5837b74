package memstorage

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/specd-io/specd/engine/storage"
)

// Watch implements storage.Storage. Each watch reads the window on its
// own, from the revision it has sent, so a slow reader holds no writer
// back; one that falls behind the window ends with ErrCompacted, as an
// etcd watch whose history was compacted does.
func (s *Storage) Watch(ctx context.Context, prefix string, afterRevision int64) <-chan storage.Event {
	out := make(chan storage.Event)
	s.mu.Lock()
	if afterRevision <= 0 {
		afterRevision = s.rev
	}
	seen := s.progress
	s.mu.Unlock()
	go func() {
		defer close(out)
		w := watcher{s: s, prefix: prefix, sent: afterRevision, progress: seen, out: out}
		w.run(ctx)
	}()
	return out
}

// RequestProgress sends every watch a bookmark at the current revision
// once it has sent every event before it, as etcd's progress
// notifications do (watchcache.ProgressRequester).
func (s *Storage) RequestProgress(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.progress++
	s.wake()
	return nil
}

// watcher is one watch: it has sent every event up to sent.
type watcher struct {
	s        *Storage
	prefix   string
	sent     int64
	progress uint64
	out      chan<- storage.Event
}

func (w *watcher) run(ctx context.Context) {
	for {
		evs, bookmark, wake, err := w.next()
		if err != nil {
			w.send(ctx, storage.Event{Err: err})
			return
		}
		for _, ev := range evs {
			if !w.send(ctx, ev) {
				return
			}
		}
		if bookmark > 0 && !w.send(ctx, storage.Event{Type: storage.EventBookmark, Revision: bookmark}) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
	}
}

// next takes the events after w.sent under the prefix, a bookmark's
// revision when progress was asked for since the last one (0 if not),
// and the channel that the next write closes.
func (w *watcher) next() (evs []storage.Event, bookmark int64, wake <-chan struct{}, err error) {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.sent < s.compacted {
		return nil, 0, nil, fmt.Errorf("memstorage: watch %s after %d (compacted at %d): %w", w.prefix, w.sent, s.compacted, storage.ErrCompacted)
	}
	from := sort.Search(len(s.history), func(i int) bool { return s.history[i].ev.Revision > w.sent })
	for _, c := range s.history[from:] {
		if strings.HasPrefix(c.ev.Key, w.prefix) {
			evs = append(evs, c.ev)
		}
	}
	w.sent = max(w.sent, s.rev)
	if w.progress != s.progress {
		w.progress, bookmark = s.progress, s.rev
	}
	return evs, bookmark, s.changed, nil
}

func (w *watcher) send(ctx context.Context, ev storage.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
