package engine

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"context"
	"strconv"

	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events.
const initialEventsEnd = metav1.InitialEventsAnnotationKey

// Watch is one watch from a Store. It is not safe for concurrent use.
type Watch struct {
	conv conversion
	rv   *schemas.ResourceVersion
	// apiVersion is rv's, made once: each event looks its encoding up
	// by it.
	apiVersion string
	sel        Selector
	bookmarks  bool
	cw         CacheWatch

	initial     []storage.KeyValue
	initialRev  int64
	endBookmark bool // send the initial-events-end bookmark
}

// Next returns the next event, waiting until ctx ends. ErrWatchClosed
// means the watch ended: the client starts a new one from the last
// resourceVersion it saw.
func (w *Watch) Next(ctx context.Context) (WatchEvent, error) {
	ev, _, err := w.next(ctx, true)
	return ev, err
}

// Ready returns the next event if it can be had without waiting for a
// change; ok is false when Next would wait. A stream writes the events
// that are ready and flushes before it waits: an event written while
// another was pending is not held back when that one turns out to be
// filtered out (a selector, an unwanted bookmark).
func (w *Watch) Ready(ctx context.Context) (ev WatchEvent, ok bool, err error) {
	return w.next(ctx, false)
}

func (w *Watch) next(ctx context.Context, wait bool) (WatchEvent, bool, error) {
	for {
		if len(w.initial) > 0 {
			kv := w.initial[0]
			w.initial = w.initial[1:]
			ev, ok, err := w.event(storage.EventAdded, kv.Value, nil, kv.ModRevision, nil)
			if err != nil || ok {
				return ev, true, err
			}
			continue
		}
		if w.endBookmark {
			w.endBookmark = false
			return WatchEvent{Type: storage.EventBookmark, Object: w.bookmark(w.initialRev, true)}, true, nil
		}
		if !wait && !w.cw.Pending() {
			return WatchEvent{}, false, nil
		}
		e, err := w.cw.Next(ctx)
		if err != nil {
			return WatchEvent{}, true, err
		}
		if e.Type == storage.EventBookmark {
			if w.bookmarks {
				return WatchEvent{Type: storage.EventBookmark, Object: w.bookmark(e.Revision, false)}, true, nil
			}
			continue
		}
		ev, ok, err := w.event(e.Type, e.Value, e.PrevValue, e.Revision, e.Encoded)
		if err != nil || ok {
			return ev, true, err
		}
	}
}

// Pending reports whether an event may be ready without waiting.
func (w *Watch) Pending() bool {
	return len(w.initial) > 0 || w.endBookmark || w.cw.Pending()
}

// Stop ends the watch.
func (w *Watch) Stop() { w.cw.Stop() }

// event converts a stored change to the watcher's version and applies the
// selector: a change that makes an object leave the selection is a
// DELETED of its previous state, one that makes it enter an ADDED. The
// served object is made once per event and version when enc is set.
func (w *Watch) event(t storage.EventType, value, prev []byte, rev int64, enc *storage.Encodings) (WatchEvent, bool, error) {
	var cur []byte // value in the watcher's version, once converted
	convert := func() ([]byte, error) {
		if cur == nil {
			var err error
			cur, err = w.conv.toVersion(w.rv, value)
			return cur, err
		}
		return cur, nil
	}
	if !w.sel.Empty() {
		c, err := convert()
		if err != nil {
			return WatchEvent{}, false, err
		}
		curIn := w.sel.Matches(w.rv, c)
		prevIn := false
		if t == storage.EventModified && prev != nil {
			old, err := w.conv.toVersion(w.rv, prev)
			if err != nil {
				return WatchEvent{}, false, err
			}
			prevIn = w.sel.Matches(w.rv, old)
			if !curIn && prevIn {
				obj, err := served(old, rev)
				return WatchEvent{Type: storage.EventDeleted, Object: obj}, err == nil, err
			}
		}
		switch {
		case !curIn && !prevIn:
			return WatchEvent{}, false, nil
		case t == storage.EventModified && !prevIn:
			t = storage.EventAdded
		}
	}
	build := func() ([]byte, error) {
		c, err := convert()
		if err != nil {
			return nil, err
		}
		return served(c, rev)
	}
	var obj []byte
	var err error
	if enc != nil {
		obj, err = enc.Get(w.apiVersion, build)
	} else {
		obj, err = build()
	}
	if err != nil {
		return WatchEvent{}, false, err
	}
	return WatchEvent{Type: t, Object: obj}, true, nil
}

// bookmark is the object of a BOOKMARK event at rev.
func (w *Watch) bookmark(rev int64, end bool) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"apiVersion":`...)
	b = appendString(b, w.apiVersion)
	b = append(b, `,"kind":`...)
	b = appendString(b, w.rv.Resource.Kind)
	b = append(b, `,"metadata":{`...)
	if end {
		b = append(b, `"annotations":{`...)
		b = appendString(b, initialEventsEnd)
		b = append(b, `:"true"},`...)
	}
	b = append(b, `"resourceVersion":"`...)
	b = strconv.AppendInt(b, rev, 10)
	return append(b, `"}}`...)
}
