package watchcache

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// ProgressRequester is a storage whose watches can be asked to report how
// far they have got, each with a bookmark at the store's current
// revision once every event before it was sent (etcd's RequestProgress;
// etcdstorage implements it). An error wrapping errors.ErrUnsupported
// means the storage cannot do it reliably.
type ProgressRequester interface {
	RequestProgress(ctx context.Context) error
}

// progressInterval is how often progress is asked again for the lists
// still waiting: etcd ignores a request while a watch on the stream is
// catching up. kube-apiserver's period.
const progressInterval = 100 * time.Millisecond

// progress asks storage for progress notifications while lists wait for
// a cache to reach a revision, as kube-apiserver's watch cache does for a
// consistent list: the watch of a resource that has not changed lately
// hears of no revision after its last change, and a notification moves it
// to the current one. One requester serves every cache: all their watches
// share one stream, and one request reaches them all.
type progress struct {
	storage ProgressRequester
	ctx     context.Context
	log     *slog.Logger
	wg      sync.WaitGroup

	mu      sync.Mutex
	waiting int
	// arrived counts waiters; sentFor is its value when the last request
	// was sent. A waiter that arrived after the last request needs a new
	// one: only a request sent after the caller read the revision it waits
	// for is sure to reach it.
	arrived, sentFor uint64
	running          bool
	wake             chan struct{}
	// unsupported is closed when storage says it cannot.
	unsupported chan struct{}
	refused     bool
}

// newProgress returns the requester of storage, nil when it cannot ask for
// progress.
func newProgress(ctx context.Context, storage any, log *slog.Logger) *progress {
	pr, ok := storage.(ProgressRequester)
	if !ok {
		return nil
	}
	return &progress{storage: pr, ctx: ctx, log: log, wake: make(chan struct{}, 1), unsupported: make(chan struct{})}
}

// wait registers a waiter until done is called; failed is closed if the
// storage turns out not to support progress requests.
func (p *progress) wait() (done func(), failed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refused {
		return func() {}, p.unsupported
	}
	p.waiting++
	p.arrived++
	if !p.running {
		p.running = true
		p.wg.Add(1)
		go p.run()
	} else {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return func() {
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
	}, p.unsupported
}

// run requests progress while anyone waits: at once for waiters that came
// after the last request, and every progressInterval for all of them.
func (p *progress) run() {
	defer p.wg.Done()
	ticker := time.NewTicker(progressInterval)
	defer ticker.Stop()
	tick := false
	for {
		p.mu.Lock()
		if p.waiting == 0 || p.ctx.Err() != nil {
			p.running = false
			p.mu.Unlock()
			return
		}
		due := tick || p.arrived != p.sentFor
		p.sentFor = p.arrived
		p.mu.Unlock()
		if due && !p.request() {
			return
		}
		tick = false
		select {
		case <-p.wake:
		case <-ticker.C:
			tick = true
		case <-p.ctx.Done():
		}
	}
}

// request sends one progress request; false when the storage refuses them
// for good.
func (p *progress) request() bool {
	err := p.storage.RequestProgress(p.ctx)
	if errors.Is(err, errors.ErrUnsupported) {
		p.log.Warn("watch cache: consistent lists are read from storage", "err", err)
		p.mu.Lock()
		p.refused, p.running = true, false
		close(p.unsupported)
		p.mu.Unlock()
		return false
	}
	if err != nil && p.ctx.Err() == nil {
		p.log.Debug("watch cache: progress request", "err", err)
	}
	return true
}

// stop waits for the requester to end; its context must be done.
func (p *progress) stop() {
	if p != nil {
		p.wg.Wait()
	}
}
