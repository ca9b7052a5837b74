package etcdstorage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
)

// waitFor is the bound of every wait on etcd expiring a key: far above a
// 2 s lease and etcd's half-second expiry check, so that only a key that
// never expires fails.
const waitFor = 30 * time.Second

func TestExpiringDeletesAndWatchSeesIt(t *testing.T) {
	cli := etcdtest.Start(t)
	s := etcdstorage.New(cli)
	ctx := t.Context()
	w := s.Watch(ctx, "/ev/", 0)
	rev, err := s.Expiring(2*time.Second).Create(ctx, "/ev/a", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "/ev/kept", []byte("k")); err != nil {
		t.Fatal(err)
	}
	wantEvent(t, w, storage.EventAdded, "/ev/a")
	wantEvent(t, w, storage.EventAdded, "/ev/kept")
	del := wantEvent(t, w, storage.EventDeleted, "/ev/a")
	if string(del.Value) != "a" || del.Revision <= rev {
		t.Errorf("expiry event = %q at %d, want the value %q after revision %d", del.Value, del.Revision, "a", rev)
	}
	if _, err := s.Get(ctx, "/ev/a"); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Errorf("Get after expiry: %v, want not found", err)
	}
	if _, err := s.Get(ctx, "/ev/kept"); err != nil {
		t.Errorf("a key written without a TTL: %v", err)
	}
}

func wantEvent(t *testing.T, w <-chan storage.Event, typ storage.EventType, key string) storage.Event {
	t.Helper()
	timeout := time.After(waitFor)
	for {
		select {
		case ev, ok := <-w:
			if !ok || ev.Err != nil {
				t.Fatalf("watch ended: %v", ev.Err)
			}
			if ev.Type == storage.EventBookmark {
				continue
			}
			if ev.Type != typ || ev.Key != key {
				t.Fatalf("event %v %s, want %v %s", ev.Type, ev.Key, typ, key)
			}
			return ev
		case <-timeout:
			t.Fatalf("no %v %s within %v", typ, key, waitFor)
		}
	}
}

func TestExpiringSharesLeases(t *testing.T) {
	cli := etcdtest.Start(t)
	s := etcdstorage.New(cli).Expiring(time.Hour)
	ctx := t.Context()
	if _, err := s.Create(ctx, "/ev/a", []byte("a")); err != nil {
		t.Fatal(err)
	}
	rev, err := s.Create(ctx, "/ev/b", []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "/ev/b", []byte("b2"), rev); err != nil {
		t.Fatal(err)
	}
	a, b := leaseOf(t, cli, "/ev/a"), leaseOf(t, cli, "/ev/b")
	if a == 0 || a != b {
		t.Fatalf("leases %x and %x, want one shared lease", a, b)
	}
	ttl, err := cli.TimeToLive(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if ttl.GrantedTTL != 3660 {
		t.Errorf("granted TTL = %ds, want 3660 (an hour and the reuse window)", ttl.GrantedTTL)
	}
}

func TestExpiringRevokedLease(t *testing.T) {
	cli := etcdtest.Start(t)
	s := etcdstorage.New(cli).Expiring(time.Hour)
	ctx := t.Context()
	if _, err := s.Create(ctx, "/ev/a", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Revoke(ctx, leaseOf(t, cli, "/ev/a")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "/ev/b", []byte("b")); err != nil {
		t.Fatalf("a write after its lease was revoked: %v", err)
	}
	if leaseOf(t, cli, "/ev/b") == 0 {
		t.Error("the write has no lease")
	}
}

// TestExpiringUpdateRenews: a key updated before it expires lives a TTL
// from the update.
func TestExpiringUpdateRenews(t *testing.T) {
	cli := etcdtest.Start(t)
	s := etcdstorage.New(cli)
	short, long := s.Expiring(2*time.Second), s.Expiring(time.Hour)
	ctx := t.Context()
	rev, err := short.Create(ctx, "/ev/a", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := long.Update(ctx, "/ev/a", []byte("a2"), rev); err != nil {
		t.Fatal(err)
	}
	created, updated := mustLeaseOfRev(t, cli, "/ev/a", rev), leaseOf(t, cli, "/ev/a")
	if updated == 0 || updated == created {
		t.Fatalf("the update left lease %x (the create's: %x), want its own", updated, created)
	}
	if _, err := cli.Revoke(ctx, created); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/ev/a"); err != nil {
		t.Errorf("after the create's lease ended: %v; the update's lease %x should keep it", err, updated)
	}
}

func leaseOf(t *testing.T, cli *clientv3.Client, key string) clientv3.LeaseID {
	t.Helper()
	resp, err := cli.Get(context.Background(), key)
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("get %s: %v (%d keys)", key, err, len(resp.Kvs))
	}
	return clientv3.LeaseID(resp.Kvs[0].Lease)
}

func mustLeaseOfRev(t *testing.T, cli *clientv3.Client, key string, rev int64) clientv3.LeaseID {
	t.Helper()
	resp, err := cli.Get(context.Background(), key, clientv3.WithRev(rev))
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("get %s at %d: %v", key, rev, err)
	}
	return clientv3.LeaseID(resp.Kvs[0].Lease)
}
