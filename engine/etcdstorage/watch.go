package etcdstorage

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
)

// watchBuffer is how many events a watch holds for a slow reader before
// etcd's own flow control holds the stream.
const watchBuffer = 128

// Watch streams the changes under prefix after afterRevision. Every event
// carries the previous value (WithPrevKV), so a delete says what it removed.
// The watch requires a leader: on a partitioned member it ends with an
// error instead of going quiet. etcd's progress notifications come as
// EventBookmark events.
func (s *Storage) Watch(ctx context.Context, prefix string, afterRevision int64) <-chan engine.Event {
	out := make(chan engine.Event, watchBuffer)
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithProgressNotify()}
	if afterRevision > 0 {
		opts = append(opts, clientv3.WithRev(afterRevision+1))
	}
	wch := s.watcher.Watch(ctx, prefix, opts...)
	go func() {
		defer close(out)
		defer cancel()
		for resp := range wch {
			if err := resp.Err(); err != nil {
				send(ctx, out, engine.Event{Err: watchError(prefix, afterRevision, resp, err)})
				return
			}
			if resp.IsProgressNotify() {
				if !send(ctx, out, engine.Event{Type: engine.EventBookmark, Revision: resp.Header.Revision}) {
					return
				}
				continue
			}
			for _, ev := range resp.Events {
				if !send(ctx, out, toEvent(ev)) {
					return
				}
			}
		}
		if ctx.Err() == nil {
			// The client closed the channel without an error: it was closed.
			send(ctx, out, engine.Event{Err: fmt.Errorf("etcdstorage: watch %q: closed", prefix)})
		}
	}()
	return out
}

func send(ctx context.Context, out chan<- engine.Event, ev engine.Event) bool {
	select {
	case out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func toEvent(ev *clientv3.Event) engine.Event {
	e := engine.Event{Key: string(ev.Kv.Key), Value: ev.Kv.Value, Revision: ev.Kv.ModRevision}
	if ev.PrevKv != nil {
		e.PrevValue = ev.PrevKv.Value
	}
	switch {
	case ev.Type == mvccpb.DELETE:
		e.Type = engine.EventDeleted
		e.Value = e.PrevValue
	case ev.IsCreate():
		e.Type = engine.EventAdded
	default:
		e.Type = engine.EventModified
	}
	return e
}

func watchError(prefix string, after int64, resp clientv3.WatchResponse, err error) error {
	if resp.CompactRevision > 0 || errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("etcdstorage: watch %q after revision %d (compacted at %d): %w: %w",
			prefix, after, resp.CompactRevision, engine.ErrCompacted, err)
	}
	return fmt.Errorf("etcdstorage: watch %q: %w", prefix, err)
}
