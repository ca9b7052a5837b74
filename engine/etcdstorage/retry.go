package etcdstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/specd-io/specd/engine/storage"
)

// The retry policy of transient etcd errors: a member that dies, a leader
// election. Every request to etcd goes through retry, and this file is the
// whole policy.
//
// A read is retried on any transient error. A write is retried too, since
// every write specd makes is a conditional transaction: of the first try
// and a retry at most one is applied, because the first that applies
// breaks the other's condition. When a try failed with an error that
// leaves its outcome unknown (etcd timed out, the connection broke after
// the request was sent) and the retry's condition then fails, the first
// try may be what broke it: the caller resolves that (resolve,
// resolveDelete), or answers that the outcome is unknown.
//
// Each try has its own deadline (tryTimeout): a try sent to a member that
// died, or to a follower whose leader died, would otherwise wait for
// etcd's request timeout (7 s with etcd's defaults) before failing. A
// write whose try ran out of time may still be applied, so its outcome is
// unknown, like any other. A try that ran out of time gets twice as long
// next time, so that a large list that is slow, not stuck, still ends.
const (
	// retryWindow bounds the retries of one request after its first
	// failure: an election on a LAN takes one to two seconds, but a retry
	// that reaches a member still catching up (one just restarted) may
	// wait for etcd's request timeout (7 s with etcd's defaults) once more.
	retryWindow = 10 * time.Second
	retryFirst  = 50 * time.Millisecond
	retryMax    = 500 * time.Millisecond
	// tryTimeout is the first deadline of one try; an answer of a live
	// etcd member takes milliseconds, an election one to two seconds.
	tryTimeout = 3 * time.Second
)

// attempt is what a request's tries end in.
type attempt int

const (
	failed  attempt = iota // not transient: answered as it is
	notSent                // transient, and etcd applied nothing
	unknown                // transient, and etcd may have applied a write
)

// classify says what err, from a request whose own context is still live,
// means for a retry.
func classify(err error) attempt {
	switch {
	case errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrLeaderChanged),
		errors.Is(err, rpctypes.ErrTooManyRequests), errors.Is(err, rpctypes.ErrNotCapable):
		return notSent
	case notConnected(err):
		return notSent
	case errors.Is(err, rpctypes.ErrTimeout), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost), errors.Is(err, rpctypes.ErrTimeoutWaitAppliedIndex),
		errors.Is(err, rpctypes.ErrStopped):
		return unknown
	case status.Code(err) == codes.Unavailable:
		return unknown // the connection broke: the request may have been sent
	}
	return failed
}

// notConnected is the client's answer when no connection to any member
// was ready: the request was never sent.
func notConnected(err error) bool {
	desc := rpctypes.ErrorDesc(err)
	return desc == "there is no address available" || desc == "there is no connection available"
}

// retry calls try until it succeeds, fails for good, ctx ends or
// window (retryWindow) has passed since its first failure, and returns its last
// error; uncertain tells whether a failed try may have applied a write.
// Each try runs under its own deadline, timeout at first, doubled after
// each try that ran out of it.
// The window starts at the first failure, not at the first try: a try
// that met a dead leader may fail only when etcd's own request timeout
// (5 s and two election timeouts) ends, well after a new leader serves.
func retry(ctx context.Context, window, timeout time.Duration, try func(ctx context.Context) error) (uncertain bool, err error) {
	var deadline time.Time
	delay := retryFirst
	for {
		// A request that has ended sends nothing: gRPC refuses a call
		// whose context is done before it is sent, but say so here.
		if err = ctx.Err(); err != nil {
			return uncertain, err
		}
		var kind attempt
		kind, err = tryOnce(ctx, timeout, try)
		if err == nil || ctx.Err() != nil || kind == failed {
			return uncertain, err
		}
		if errors.Is(err, errTryTimeout) {
			timeout *= 2
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(window)
		}
		uncertain = uncertain || kind == unknown
		if time.Now().Add(delay).After(deadline) || !sleep(ctx, delay) {
			return uncertain, err
		}
		delay = min(2*delay, retryMax)
	}
}

// errTryTimeout is the error of a try that ran out of its own deadline
// while the request's context was live: etcd may have applied it.
var errTryTimeout = errors.New("etcdstorage: an etcd request took longer than its try's deadline")

// tryOnce runs try under a deadline of timeout and classifies its error.
func tryOnce(ctx context.Context, timeout time.Duration, try func(ctx context.Context) error) (attempt, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errTryTimeout)
	defer cancel()
	err := try(tctx)
	switch {
	case err == nil:
		return failed, nil
	case ctx.Err() != nil:
		return failed, err
	case tctx.Err() != nil:
		// Not the context's error: the request's own deadline did not end.
		return unknown, fmt.Errorf("%w (%s): %v", errTryTimeout, timeout, err)
	}
	return classify(err), err
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// get is a read of etcd, retried (retry).
func (s *Storage) get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	var resp *clientv3.GetResponse
	_, err := retry(ctx, s.retryWindow, s.tryTimeout, func(ctx context.Context) (err error) {
		resp, err = s.kv.Get(ctx, key, opts...)
		return err
	})
	return resp, err
}

// commit runs the conditional transaction that build makes of an empty
// one, retried (retry); uncertain says whether a failed try may have been
// applied. Each try builds its own, bound to the try's deadline.
func (s *Storage) commit(ctx context.Context, build func(clientv3.Txn) clientv3.Txn) (resp *clientv3.TxnResponse, uncertain bool, err error) {
	uncertain, err = retry(ctx, s.retryWindow, s.tryTimeout, func(ctx context.Context) (err error) {
		resp, err = build(s.kv.Txn(ctx)).Commit()
		return err
	})
	return resp, uncertain, err
}

// errRetryCondition is why a write whose first try's outcome is unknown
// stays unknown: the retry's condition failed, perhaps because of it.
var errRetryCondition = errors.New("etcdstorage: a try timed out and the retry's condition failed")

// resolve settles a create or update of key to value whose first try's
// outcome was unknown and whose retry's condition failed: if key holds
// value, the first try applied it (value carries the object's uid and
// managed fields, so another writer's value is not the same bytes), else
// the outcome stays unknown.
func (s *Storage) resolve(ctx context.Context, op, key string, value []byte) (int64, error) {
	resp, err := s.get(ctx, key)
	if err != nil {
		return 0, unknownOutcome(op, key, err)
	}
	if len(resp.Kvs) == 1 && bytes.Equal(resp.Kvs[0].Value, value) {
		return resp.Kvs[0].ModRevision, nil
	}
	return 0, unknownOutcome(op, key, errRetryCondition)
}

// resolveDelete settles a delete of key at expectedRevision whose first
// try's outcome was unknown and whose retry's condition failed; failed is
// the retry's answer, with the key as it is now. The revision deleted
// identifies one life of the key: if that life has ended (the key is gone,
// or was created again after expectedRevision), the object the client
// meant to delete is gone and the delete succeeded, as kube would answer
// it, with the value at that revision. If the key still lives the life it
// had at expectedRevision, nothing deleted it: another write changed it
// and the delete is a conflict. A delete of any revision (0) cannot tell
// and stays unknown.
func (s *Storage) resolveDelete(ctx context.Context, key string, expectedRevision int64, failed *clientv3.TxnResponse) (storage.KeyValue, error) {
	if expectedRevision <= 0 || len(failed.Responses) == 0 {
		return storage.KeyValue{}, unknownOutcome("delete", key, errRetryCondition)
	}
	if cur := failed.Responses[0].GetResponseRange().GetKvs(); len(cur) == 1 && cur[0].CreateRevision <= expectedRevision {
		return storage.KeyValue{}, fmt.Errorf("etcdstorage: delete %q at revision %d: %w", key, expectedRevision, storage.ErrConflict)
	}
	resp, err := s.get(ctx, key, clientv3.WithRev(expectedRevision))
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].ModRevision != expectedRevision {
		// Compacted, most likely: gone, but what it held is not known.
		return storage.KeyValue{}, unknownOutcome("delete", key, errRetryCondition)
	}
	prev := resp.Kvs[0]
	return storage.KeyValue{Key: string(prev.Key), Value: prev.Value, ModRevision: prev.ModRevision}, nil
}

// writeError is the error of a write that failed after retries: an
// UnknownOutcomeError if any try may have been applied, unless the
// request ran out of time, whose answer already says the outcome is not
// known.
func writeError(err error, uncertain bool, op, key string, value []byte) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return wrapWrite(err, op, key, value) // the request's deadline: kube's 504 (storage.ErrTimeout)
	}
	if uncertain || classify(err) == unknown {
		return unknownOutcome(op, key, err)
	}
	return wrapWrite(err, op, key, value)
}

func unknownOutcome(op, key string, err error) error {
	return fmt.Errorf("etcdstorage: %s %q: %w", op, key, &storage.UnknownOutcomeError{Cause: err})
}
