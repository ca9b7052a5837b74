package etcdstorage_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
)

// flakyKV fails the next transactions (fails of them) with err; applied
// says whether each failing transaction is applied first, as a write
// whose answer was lost in a leader election is.
type flakyKV struct {
	clientv3.KV
	fails   atomic.Int32
	err     error
	applied bool
	slow    time.Duration // how long a failing try takes
	// hang makes a failing try wait for the end of its context instead,
	// as one sent to an etcd member that died does.
	hang bool
	// during, if set, runs in each failing try: another writer's turn.
	during func()
}

func (f *flakyKV) Txn(ctx context.Context) clientv3.Txn {
	return &flakyTxn{Txn: f.KV.Txn(ctx), kv: f, ctx: ctx}
}

type flakyTxn struct {
	clientv3.Txn
	kv  *flakyKV
	ctx context.Context // the try's, which a hanging try waits out
}

func (t *flakyTxn) If(cs ...clientv3.Cmp) clientv3.Txn   { t.Txn = t.Txn.If(cs...); return t }
func (t *flakyTxn) Then(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Then(ops...); return t }
func (t *flakyTxn) Else(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Else(ops...); return t }

func (t *flakyTxn) Commit() (*clientv3.TxnResponse, error) {
	if t.kv.fails.Add(-1) < 0 {
		return t.Txn.Commit()
	}
	if t.kv.applied {
		if _, err := t.Txn.Commit(); err != nil {
			return nil, err
		}
	}
	if t.kv.during != nil {
		t.kv.during()
	}
	if t.kv.hang {
		<-t.ctx.Done()
		return nil, t.ctx.Err()
	}
	time.Sleep(t.kv.slow)
	return nil, t.kv.err
}

// TestWriteRetries: writes that etcd fails transiently are retried; one
// whose first try was applied unknown to specd is settled by reading it
// back (create, update), or answered as unknown (delete); an error that
// is not transient is not retried.
func TestWriteRetries(t *testing.T) {
	cli := etcdtest.Start(t)
	flaky := &flakyKV{}
	st := etcdstorage.NewWithKV(cli, func(kv clientv3.KV) clientv3.KV { flaky.KV = kv; return flaky })
	ctx := context.Background()
	fail := func(n int32, err error, applied bool) { flaky.fails.Store(n); flaky.err, flaky.applied = err, applied }

	fail(2, rpctypes.ErrNoLeader, false)
	rev, err := st.Create(ctx, "/k/a", []byte("1"))
	if err != nil {
		t.Fatalf("create after two refusals: %v", err)
	}
	fail(1, rpctypes.ErrTimeoutDueToLeaderFail, true)
	if rev, err = st.Update(ctx, "/k/a", []byte("2"), rev); err != nil {
		t.Fatalf("update applied by a try that timed out: %v", err)
	}
	if kv, err := st.Get(ctx, "/k/a"); err != nil || string(kv.Value) != "2" || kv.ModRevision != rev {
		t.Fatalf("after the update: %+v, %v; want 2 at %d", kv, err, rev)
	}
	fail(1, rpctypes.ErrTimeoutDueToLeaderFail, true)
	if _, err := st.Create(ctx, "/k/b", []byte("1")); err != nil {
		t.Fatalf("create applied by a try that timed out: %v", err)
	}
	fail(1, rpctypes.ErrTimeoutDueToLeaderFail, true)
	_, err = st.Delete(ctx, "/k/b", 0)
	var unknown *storage.UnknownOutcomeError
	if !errors.As(err, &unknown) || !errors.Is(err, storage.ErrTimeout) {
		t.Fatalf("delete of any revision applied by a try that timed out: %v, want an unknown outcome", err)
	}
	if _, err := st.Create(ctx, "/k/a", []byte("3")); !errors.Is(err, storage.ErrKeyExists) {
		t.Fatalf("create of a taken key: %v, want ErrKeyExists", err)
	}
	fail(1, rpctypes.ErrGRPCCompacted, false)
	if _, err := st.Create(ctx, "/k/c", []byte("1")); err == nil || flaky.fails.Load() != 0 {
		t.Fatalf("create that failed for good: %v (fails left %d), want its error, not retried", err, flaky.fails.Load())
	}
}

// TestWriteRetriedAfterSlowFailure: a write that met a dead etcd leader
// fails only when etcd's request timeout ends (7 s with etcd's defaults),
// which may be longer than specd's retry window; it is still retried,
// since the window counts from the failure.
func TestWriteRetriedAfterSlowFailure(t *testing.T) {
	cli := etcdtest.Start(t)
	flaky := &flakyKV{err: rpctypes.ErrTimeoutDueToLeaderFail, slow: time.Second}
	st := etcdstorage.NewWithKV(cli, func(kv clientv3.KV) clientv3.KV { flaky.KV = kv; return flaky })
	st.SetRetryWindow(500 * time.Millisecond)
	flaky.fails.Store(1)
	if _, err := st.Create(context.Background(), "/k/slow", []byte("1")); err != nil {
		t.Fatalf("create whose first try failed after 1 s, with a window of 0.5 s: %v", err)
	}
}

// TestStuckTryRetried: a try that etcd never answers (sent to a member
// that died) is abandoned at its own deadline and retried, well within the
// request's; a write it may have applied is read back, not applied twice
// nor answered as a conflict.
func TestStuckTryRetried(t *testing.T) {
	cli := etcdtest.Start(t)
	flaky := &flakyKV{hang: true}
	st := etcdstorage.NewWithKV(cli, func(kv clientv3.KV) clientv3.KV { flaky.KV = kv; return flaky })
	st.SetTryTimeout(100 * time.Millisecond)
	// The request's own deadline is far longer than a try's; without
	// the try's deadline, the hanging try would use all of it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hang := func(applied bool) { flaky.fails.Store(1); flaky.applied = applied }

	hang(true)
	rev, err := st.Create(ctx, "/k/a", []byte("1"))
	if err != nil {
		t.Fatalf("create applied by a try that hung: %v", err)
	}
	hang(false)
	if rev, err = st.Update(ctx, "/k/a", []byte("2"), rev); err != nil {
		t.Fatalf("update whose first try hung unapplied: %v", err)
	}
	hang(true)
	if rev, err = st.Update(ctx, "/k/a", []byte("3"), rev); err != nil {
		t.Fatalf("update applied by a try that hung: %v", err)
	}
	if kv, err := st.Get(ctx, "/k/a"); err != nil || string(kv.Value) != "3" || kv.ModRevision != rev {
		t.Fatalf("after the updates: %+v, %v; want 3 at %d", kv, err, rev)
	}
	if ctx.Err() != nil {
		t.Fatalf("the request's deadline ended: the tries waited it out")
	}
}

// TestStuckTryUnknown: a write whose tries all hang, past the retry
// window, answers that its outcome is unknown, not the request's timeout.
func TestStuckTryUnknown(t *testing.T) {
	cli := etcdtest.Start(t)
	flaky := &flakyKV{hang: true}
	st := etcdstorage.NewWithKV(cli, func(kv clientv3.KV) clientv3.KV { flaky.KV = kv; return flaky })
	st.SetTryTimeout(50 * time.Millisecond)
	st.SetRetryWindow(300 * time.Millisecond)
	flaky.fails.Store(1000)
	_, err := st.Create(context.Background(), "/k/stuck", []byte("1"))
	var unknown *storage.UnknownOutcomeError
	if !errors.As(err, &unknown) || !errors.Is(err, storage.ErrTimeout) {
		t.Fatalf("create whose tries all hung: %v, want an unknown outcome", err)
	}
}

// TestDeleteReadBack: a delete of a revision whose first try timed out
// and whose retry's condition failed is settled by what the key holds:
// the life of the key it meant to end is over (applied by the first try,
// or the key was deleted and created again) and it succeeds with the
// deleted value; the key still lives that life, changed by another
// writer, and it is a conflict the engine retries.
func TestDeleteReadBack(t *testing.T) {
	cli := etcdtest.Start(t)
	flaky := &flakyKV{err: rpctypes.ErrTimeoutDueToLeaderFail}
	st := etcdstorage.NewWithKV(cli, func(kv clientv3.KV) clientv3.KV { flaky.KV = kv; return flaky })
	ctx := context.Background()
	put := func(key, value string) {
		t.Helper()
		if _, err := cli.Put(ctx, key, value); err != nil {
			t.Fatal(err)
		}
	}
	tests := map[string]struct {
		applied bool
		during  func(key string)
		want    error // nil: deleted, with the value at the revision
	}{
		"applied by the first try":  {applied: true},
		"updated by another writer": {during: func(key string) { put(key, "other") }, want: storage.ErrConflict},
		"deleted and created again": {during: func(key string) {
			if _, err := cli.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			put(key, "new life")
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			key := "/k/del/" + name
			rev, err := st.Create(ctx, key, []byte("v"))
			if err != nil {
				t.Fatal(err)
			}
			flaky.applied, flaky.during = tc.applied, nil
			if tc.during != nil {
				flaky.during = func() { tc.during(key) }
			}
			flaky.fails.Store(1)
			kv, err := st.Delete(ctx, key, rev)
			switch {
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("delete: %v, want %v", err, tc.want)
			case tc.want == nil && (err != nil || string(kv.Value) != "v" || kv.ModRevision != rev):
				t.Fatalf("delete: %+v, %v; want v at %d", kv, err, rev)
			}
		})
	}
}
