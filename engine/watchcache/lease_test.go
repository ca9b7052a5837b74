package watchcache

import (
	"fmt"
	"slices"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

// TestOneRevisionManyEvents: etcd deletes every key of an expired lease
// in one revision (events share their leases); the cache applies and
// sends every delete, not only the first of the revision.
func TestOneRevisionManyEvents(t *testing.T) {
	cli := etcdtest.Start(t)
	cs := newTestCaches(t, etcdstorage.New(cli), Config{})
	ctx := ctxFor(t)
	lease, err := cli.Grant(ctx, 3600)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ns/a", "ns/b", "ns/c"} {
		if _, err := cli.Put(ctx, res+name, `{}`, clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := cs.Watch(ctx, res, engine.CacheWatchOptions{Prefix: res, Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	revoked, err := cli.Revoke(ctx, lease.ID)
	if err != nil {
		t.Fatal(err)
	}
	rev := revoked.Header.Revision
	got := collect(t, ctx, w, 3)
	want := []string{fmt.Sprintf("DELETED ns/a@%d", rev), fmt.Sprintf("DELETED ns/b@%d", rev), fmt.Sprintf("DELETED ns/c@%d", rev)}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	list, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res, MinRevision: rev})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("the cache lists %d objects after the revoke, want none", len(list.Items))
	}
}
