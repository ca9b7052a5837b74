package etcdcare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
)

var quiet = slog.New(slog.DiscardHandler)

// startEtcd starts an embedded etcd for one test and returns a client of
// it through its socket, timed by specd's request metrics, as specd serve
// does.
func startEtcd(t testing.TB, quota int64) *clientv3.Client {
	t.Helper()
	// Not t.TempDir(): the socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "etcdcare-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	e, err := etcdstorage.StartEmbedded(t.Context(), etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true,
		Logger: quiet, History: -1, QuotaBackendBytes: quota})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	cli, err := e.Client(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	TimeRequests(cli)
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

func put(t testing.TB, cli *clientv3.Client, key string, size int) int64 {
	t.Helper()
	resp, err := cli.Put(t.Context(), key, strings.Repeat("x", size))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// TestCompactorOneReplicaPerInterval runs two compactors on one etcd, as
// two replicas would: in each interval the first to tick compacts, to
// the revision the previous interval ended at, and the other does not.
func TestCompactorOneReplicaPerInterval(t *testing.T) {
	cli := startEtcd(t, 0)
	a, b := NewCompactor(cli, quiet), NewCompactor(cli, quiet)
	old := put(t, cli, "/k", 10)
	if rev := mustTick(t, a); rev != 0 {
		t.Fatalf("first tick compacted to %d: there is no previous interval yet", rev)
	}
	if rev := mustTick(t, b); rev != 0 {
		t.Fatalf("second replica compacted to %d in an interval the first one had", rev)
	}
	put(t, cli, "/k", 10)
	rev := mustTick(t, a)
	if rev <= old {
		t.Fatalf("second interval compacted to %d, want past the first write's %d", rev, old)
	}
	if rev := mustTick(t, b); rev != 0 {
		t.Fatalf("second replica compacted to %d in an interval the first one had", rev)
	}
	if _, err := cli.Get(t.Context(), "/k", clientv3.WithRev(old)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Fatalf("read at compacted revision %d: %v, want ErrCompacted", old, err)
	}
	// The next interval is the second replica's if it ticks first.
	if rev := mustTick(t, b); rev == 0 {
		t.Fatal("second replica ticking first in an interval did not compact")
	}
}

func mustTick(t *testing.T, c *Compactor) int64 {
	t.Helper()
	rev, err := c.Tick(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// TestWatchCacheSurvivesCompaction compacts etcd to its newest revision
// under a running watch cache: the cache's watch at the head goes on,
// and a watcher of the cache gets every change before and after.
func TestWatchCacheSurvivesCompaction(t *testing.T) {
	cli := startEtcd(t, 0)
	st := etcdstorage.New(cli)
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	t.Cleanup(caches.Close)
	const prefix = "/specd/g/widgets/"
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := caches.Watch(ctx, prefix, engine.CacheWatchOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The cache's etcd watch is under way once it sends an event: a
	// compaction only ends watches that start behind it.
	if _, err := st.Create(ctx, prefix+"first", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if ev, err := w.Next(ctx); err != nil || ev.Key != prefix+"first" {
		t.Fatalf("first event %v %v", ev, err)
	}
	var want []string
	for i := range 20 {
		if i == 10 {
			resp, err := cli.Get(ctx, "/")
			if err != nil {
				t.Fatal(err)
			}
			if err := Compact(ctx, cli, resp.Header.Revision); err != nil {
				t.Fatal(err)
			}
		}
		key := fmt.Sprintf("%sw%02d", prefix, i)
		if _, err := st.Create(ctx, key, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		want = append(want, key)
	}
	for _, key := range want {
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("watch ended before %s: %v", key, err)
		}
		if ev.Key != key || ev.Type != storage.EventAdded {
			t.Fatalf("event %v %s, want ADDED %s", ev.Type, ev.Key, key)
		}
	}
}

// TestDefragmentsMostlyFreeFile writes large values, deletes them and
// compacts: the file is then mostly free pages, and a check defragments
// it, counts it and shrinks it.
func TestDefragmentsMostlyFreeFile(t *testing.T) {
	cli, before := mostlyFreeFile(t)
	care := New(Config{Client: cli, Embedded: true, Logger: quiet, Defrag: DefragPolicy{MinBytes: 1 << 20, MaxInUse: 0.5}})
	done := testutil.ToFloat64(defrags.WithLabelValues(resultDone))
	if err := care.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := status(t, cli)
	if after.DbSize >= before.DbSize/2 {
		t.Errorf("database %d bytes after defragmentation, %d before (%d in use)", after.DbSize, before.DbSize, before.DbSizeInUse)
	}
	if got := testutil.ToFloat64(defrags.WithLabelValues(resultDone)) - done; got != 1 {
		t.Errorf("%v defragmentations counted, want 1", got)
	}
	if got := testutil.ToFloat64(dbSize.WithLabelValues(fmt.Sprintf("%x", after.Header.ClusterId))); got != float64(after.DbSize) {
		t.Errorf("apiserver_storage_size_bytes %v, want %d", got, after.DbSize)
	}
	// A second check finds nothing worth doing.
	if err := care.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(defrags.WithLabelValues(resultDone)) - done; got != 1 {
		t.Errorf("%v defragmentations counted after a second check, want 1", got)
	}
}

// TestDefragmentWaitsForQuiet: a defragmentation that is due waits for a
// check interval with few writes: none at the first check, which knows
// no rate yet, none after writes, one after a quiet interval.
func TestDefragmentWaitsForQuiet(t *testing.T) {
	cli, _ := mostlyFreeFile(t)
	// Fewer than 1e-9 writes a second: only an interval without writes.
	care := New(Config{Client: cli, Embedded: true, Logger: quiet,
		Defrag: DefragPolicy{MinBytes: 1 << 20, MaxInUse: 0.5, QuietWrites: 1e-9, MaxWait: time.Hour}})
	done := testutil.ToFloat64(defrags.WithLabelValues(resultDone))
	check := func(what string, want float64) {
		t.Helper()
		if err := care.Check(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := testutil.ToFloat64(defrags.WithLabelValues(resultDone)) - done; got != want {
			t.Fatalf("%s: %v defragmentations, want %v", what, got, want)
		}
	}
	check("first check", 0)
	put(t, cli, "/busy", 1)
	check("after a write", 0)
	check("after an interval without writes", 1)
}

func TestDefragPolicyNow(t *testing.T) {
	p := DefragPolicy{QuietWrites: 20, MaxWait: time.Hour}
	tests := map[string]struct {
		rate   float64
		known  bool
		waited time.Duration
		want   bool
	}{
		"quiet":                    {rate: 5, known: true, want: true},
		"busy":                     {rate: 500, known: true, waited: time.Minute},
		"rate not known yet":       {rate: 0, known: false},
		"busy, waited long enough": {rate: 500, known: true, waited: time.Hour, want: true},
	}
	for name, tc := range tests {
		if got := p.now(tc.rate, tc.known, tc.waited); got != tc.want {
			t.Errorf("%s: now = %v, want %v", name, got, tc.want)
		}
	}
	if !(DefragPolicy{}).now(500, false, 0) {
		t.Error("a policy without QuietWrites waits")
	}
}

// mostlyFreeFile starts an etcd whose database is more than half free
// pages, and returns its status.
func mostlyFreeFile(t *testing.T) (*clientv3.Client, *clientv3.StatusResponse) {
	t.Helper()
	cli := startEtcd(t, 0)
	for i := range 40 {
		put(t, cli, fmt.Sprintf("/big/%d", i), 100<<10)
	}
	return cli, deleteAndCompact(t, cli, "/big/", 0.5)
}

// deleteAndCompact deletes the keys under prefix, compacts, and returns
// etcd's status once at most inUse of its file is live data (or after 5
// s of trying).
func deleteAndCompact(t testing.TB, cli *clientv3.Client, prefix string, inUse float64) *clientv3.StatusResponse {
	t.Helper()
	resp, err := cli.Delete(t.Context(), prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if err := Compact(t.Context(), cli, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	// etcd counts the pages a compaction freed once a later write
	// commits.
	st := status(t, cli)
	for i := 0; i < 50 && float64(st.DbSizeInUse) > inUse*float64(st.DbSize); i++ {
		time.Sleep(100 * time.Millisecond)
		put(t, cli, "/small", 1)
		st = status(t, cli)
	}
	return st
}

func status(t testing.TB, cli *clientv3.Client) *clientv3.StatusResponse {
	t.Helper()
	st, err := cli.Status(t.Context(), cli.Endpoints()[0]) // the one member
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestNoSpaceRecovery fills an etcd with a small quota by rewriting one
// object: writes fail with storage.ErrNoSpace while reads and deletes
// work, and a check frees the history, disarms the alarm, and writes
// work again.
func TestNoSpaceRecovery(t *testing.T) {
	cli := startEtcd(t, 8<<20)
	st := etcdstorage.New(cli)
	ctx := t.Context()
	value := []byte(`{"data":"` + strings.Repeat("x", 256<<10) + `"}`)
	if _, err := st.Create(ctx, "/specd/g/widgets/spare", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	rev, err := st.Create(ctx, "/specd/g/widgets/w", value)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && err == nil; i++ {
		rev, err = st.Update(ctx, "/specd/g/widgets/w", value, rev)
	}
	if !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("rewriting a 256 KiB object under an 8 MiB quota: %v, want ErrNoSpace", err)
	}
	if _, err := st.Create(ctx, "/specd/g/widgets/new", []byte(`{}`)); !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("create while full: %v, want ErrNoSpace", err)
	}
	if _, err := st.Get(ctx, "/specd/g/widgets/w"); err != nil {
		t.Fatalf("read while full: %v", err)
	}
	if _, err := st.Delete(ctx, "/specd/g/widgets/spare", 0); err != nil {
		t.Fatalf("delete while full: %v", err)
	}
	disarms := testutil.ToFloat64(alarmDisarms)
	care := New(Config{Client: cli, Embedded: true, Logger: quiet})
	if err := care.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(alarmDisarms) - disarms; got != 1 {
		t.Errorf("%v alarms disarmed, want 1", got)
	}
	if got := testutil.ToFloat64(noSpaceAlarm); got != 1 {
		t.Errorf("apiserver_storage_nospace_alarm %v during the check that disarmed it, want 1", got)
	}
	kv, err := st.Get(ctx, "/specd/g/widgets/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, "/specd/g/widgets/w", value, kv.ModRevision); err != nil {
		t.Fatalf("write after recovery: %v", err)
	}
	if err := care.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(noSpaceAlarm); got != 0 {
		t.Errorf("apiserver_storage_nospace_alarm %v after recovery, want 0", got)
	}
}

// TestRequestMetrics counts requests by operation and the group and
// resource of their key.
func TestRequestMetrics(t *testing.T) {
	cli := startEtcd(t, 0)
	st := etcdstorage.New(cli)
	before := testutil.ToFloat64(requestsTotal.WithLabelValues("txn", "apps/deployments"))
	if _, err := st.Create(t.Context(), "/specd/apps/deployments/ns/d", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(requestsTotal.WithLabelValues("txn", "apps/deployments")) - before; got != 1 {
		t.Errorf("etcd_requests_total{operation=txn,type=apps/deployments} went up by %v, want 1", got)
	}
	if n := testutil.CollectAndCount(requestDuration, "etcd_request_duration_seconds"); n == 0 {
		t.Error("no etcd_request_duration_seconds series")
	}
}
