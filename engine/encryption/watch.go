package encryption

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/specd-io/specd/engine/storage"
)

// Watch decrypts the values of every event. An event it cannot decrypt
// ends the watch with an error wrapping ErrDecrypt, as kube-apiserver
// ends a watch on a value it cannot transform: the watch cache then lists
// again, and that list fails as loudly. A watch of a resource stored as
// it is is the base's own channel.
func (s *Storage) Watch(ctx context.Context, prefix string, afterRevision int64) <-chan storage.Event {
	sc := s.scope(prefix)
	if sc.whole && sc.t == nil {
		return s.base.Watch(ctx, prefix, afterRevision)
	}
	ctx, cancel := context.WithCancel(ctx)
	in := s.base.Watch(ctx, prefix, afterRevision)
	out := make(chan storage.Event, cap(in))
	go func() {
		defer close(out)
		defer cancel()
		for ev := range in {
			ev, err := s.decryptEvent(ctx, sc, ev)
			if err != nil {
				ev = storage.Event{Err: err}
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if ev.Err != nil {
				return
			}
		}
	}()
	return out
}

// decryptEvent decrypts ev's value and previous value; a delete's, which
// are one, once.
func (s *Storage) decryptEvent(ctx context.Context, sc scope, ev storage.Event) (storage.Event, error) {
	if ev.Err != nil || ev.Type == storage.EventBookmark {
		return ev, nil
	}
	t, gr := sc.of(s, ev.Key)
	if t == nil {
		return ev, nil
	}
	same := len(ev.Value) > 0 && len(ev.PrevValue) == len(ev.Value) && &ev.Value[0] == &ev.PrevValue[0]
	v, err := s.decryptValue(ctx, t, gr, ev.Key, ev.Value)
	if err != nil {
		return ev, err
	}
	prev := v
	if !same {
		if prev, err = s.decryptValue(ctx, t, gr, ev.Key, ev.PrevValue); err != nil {
			return ev, err
		}
	}
	ev.Value, ev.PrevValue = v, prev
	return ev, nil
}

// decryptValue is decrypt of one value; nothing stays nothing.
func (s *Storage) decryptValue(ctx context.Context, t value.Transformer, gr schema.GroupResource, key string, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return v, nil
	}
	kv, err := s.decrypt(ctx, t, gr, storage.KeyValue{Key: key, Value: v})
	return kv.Value, err
}
