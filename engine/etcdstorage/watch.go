package etcdstorage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/specd-io/specd/engine/storage"
)

// watchBuffer is how many events a watch holds for a slow reader before
// etcd's own flow control holds the stream.
const watchBuffer = 128

// Watch streams the changes under prefix after afterRevision. Every event
// carries the previous value (WithPrevKV), so a delete says what it removed.
// The watch requires a leader: on a partitioned member it ends with an
// error instead of going quiet. etcd's progress notifications come as
// EventBookmark events.
func (s *Storage) Watch(ctx context.Context, prefix string, afterRevision int64) <-chan storage.Event {
	out := make(chan storage.Event, watchBuffer)
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
				send(ctx, out, storage.Event{Err: watchError(prefix, afterRevision, resp, err)})
				return
			}
			if resp.IsProgressNotify() {
				if !send(ctx, out, storage.Event{Type: storage.EventBookmark, Revision: resp.Header.Revision}) {
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
			send(ctx, out, storage.Event{Err: fmt.Errorf("etcdstorage: watch %q: closed", prefix)})
		}
	}()
	return out
}

func send(ctx context.Context, out chan<- storage.Event, ev storage.Event) bool {
	select {
	case out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func toEvent(ev *clientv3.Event) storage.Event {
	e := storage.Event{Key: string(ev.Kv.Key), Value: ev.Kv.Value, Revision: ev.Kv.ModRevision}
	if ev.PrevKv != nil {
		e.PrevValue = ev.PrevKv.Value
	}
	switch {
	case ev.Type == mvccpb.DELETE:
		e.Type = storage.EventDeleted
		e.Value = e.PrevValue
	case ev.IsCreate():
		e.Type = storage.EventAdded
	default:
		e.Type = storage.EventModified
	}
	return e
}

func watchError(prefix string, after int64, resp clientv3.WatchResponse, err error) error {
	if resp.CompactRevision > 0 || errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("etcdstorage: watch %q after revision %d (compacted at %d): %w: %w",
			prefix, after, resp.CompactRevision, storage.ErrCompacted, err)
	}
	return fmt.Errorf("etcdstorage: watch %q: %w", prefix, err)
}

// RequestProgress asks etcd to tell every watch of this client how far it
// has got: each gets a progress notification (an EventBookmark) at etcd's
// current revision, once it has been sent every event up to it. etcd drops
// the request while a watch on the stream is still catching up, so a
// caller that waits for one asks again after a while.
//
// It answers an error wrapping errors.ErrUnsupported when a member runs an
// etcd whose notifications may overtake events (before 3.4.31, or a 3.5
// before 3.5.13), which kube-apiserver refuses for the same use
// (kubernetes#123192).
func (s *Storage) RequestProgress(ctx context.Context) error {
	ok, err := s.progress.supported(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("etcdstorage: progress requests: %w: an etcd member is older than 3.4.31, or a 3.5 before 3.5.13",
			errors.ErrUnsupported)
	}
	// The watches' own metadata (WithRequireLeader), so that the request
	// goes on their gRPC stream.
	if err := s.watcher.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return fmt.Errorf("etcdstorage: progress request: %w", err)
	}
	return nil
}

// statusClient is what the version check needs of a client.
type statusClient interface {
	Endpoints() []string
	Status(ctx context.Context, endpoint string) (*clientv3.StatusResponse, error)
}

// progressCheck remembers whether every member's etcd sends progress
// notifications only after the events before them.
type progressCheck struct {
	cli statusClient

	mu     sync.Mutex
	known  bool
	answer bool
}

// statusTimeout bounds the version check of one member.
const statusTimeout = 5 * time.Second

// supported checks the version of every endpoint once; an endpoint that
// does not answer leaves the question open for the next call.
func (p *progressCheck) supported(ctx context.Context) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.known {
		return p.answer, nil
	}
	for _, ep := range p.cli.Endpoints() {
		sctx, cancel := context.WithTimeout(ctx, statusTimeout)
		st, err := p.cli.Status(sctx, ep)
		cancel()
		if err != nil {
			return false, fmt.Errorf("etcdstorage: version of %s: %w", ep, err)
		}
		if !progressNotifyOrdered(st.Version) {
			p.known, p.answer = true, false
			return false, nil
		}
	}
	p.known, p.answer = true, true
	return true, nil
}

var (
	etcd3431 = version.MustParseSemantic("3.4.31")
	etcd350  = version.MustParseSemantic("3.5.0")
	etcd3513 = version.MustParseSemantic("3.5.13")
)

// progressNotifyOrdered reports whether an etcd server of version v sends
// requested progress notifications in order with events, as kube-apiserver
// decides it.
func progressNotifyOrdered(v string) bool {
	sv, err := version.ParseSemantic(v)
	if err != nil {
		return false
	}
	if sv.LessThan(etcd3431) {
		return false
	}
	return !(sv.AtLeast(etcd350) && sv.LessThan(etcd3513))
}
