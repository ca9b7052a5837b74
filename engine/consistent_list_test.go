package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/metrics"
)

// consistentCount reads specd_consistent_lists_total of the widgets
// served from where.
func consistentCount(t *testing.T, where string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"group": "shop.example.com", "resource": "widgets", "served": where}
	for _, f := range families {
		if f.GetName() != "specd_consistent_lists_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			matched := 0
			for _, l := range m.GetLabel() {
				if want[l.GetName()] == l.GetValue() {
					matched++
				}
			}
			if matched == len(want) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// countingStorage counts the lists that read objects (not the one-key
// reads of the current revision) and can refuse progress requests.
type countingStorage struct {
	*etcdstorage.Storage
	lists  atomic.Int64
	refuse bool
}

func (c *countingStorage) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if opts.Limit != 1 {
		c.lists.Add(1)
	}
	return c.Storage.List(ctx, prefix, opts)
}

func (c *countingStorage) RequestProgress(ctx context.Context) error {
	if c.refuse {
		return fmt.Errorf("an old etcd: %w", errors.ErrUnsupported)
	}
	return c.Storage.RequestProgress(ctx)
}

func consistentStore(t *testing.T, refuse bool) (*engine.Store, *countingStorage) {
	t.Helper()
	st := &countingStorage{Storage: etcdstorage.New(testClient), refuse: refuse}
	caches := watchcache.New(st, watchcache.Config{})
	t.Cleanup(caches.Close)
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	return engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow }, Cache: caches}), st
}

// listRev is the resourceVersion of a list or an object.
func listRev(t *testing.T, obj []byte) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rvOf(obj), 10, 64)
	if err != nil {
		t.Fatalf("no resourceVersion: %s", obj)
	}
	return n
}

// TestConsistentListFromCache: a list without resourceVersion is served by
// the watch cache, never older than etcd when the list began: every write
// made before it is in it, also right after the write, and also when the
// last write was to another resource.
func TestConsistentListFromCache(t *testing.T) {
	ctx := context.Background()
	s, st := consistentStore(t, false)
	rv := widgets(t)
	mustCreate(t, s, rv, "default", widget("a", 1))
	if _, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{ResourceVersion: "0"}); err != nil {
		t.Fatal(err) // the cache is loaded
	}
	// The last write is another resource's: the widgets' watch has not
	// seen its revision.
	wh := mustCreate(t, s, warehouses(t), "", `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north"}}`)
	before, cached := st.lists.Load(), consistentCount(t, "cache")
	list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := consistentCount(t, "cache") - cached; n != 1 {
		t.Fatalf("specd_consistent_lists_total{served=cache} moved by %v, want 1", n)
	}
	if names(list) != "[a]" || listRev(t, list) < listRev(t, wh) {
		t.Fatalf("list %s at %d, want a at >= %d", names(list), listRev(t, list), listRev(t, wh))
	}
	// Read your writes, from the cache.
	for i := range 20 {
		name := fmt.Sprintf("w%02d", i)
		created := mustCreate(t, s, rv, "default", widget(name, 1))
		list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: mustSelector(t, rv, "", "metadata.name="+name)})
		if err != nil {
			t.Fatal(err)
		}
		if names(list) != "["+name+"]" || listRev(t, list) < listRev(t, created) {
			t.Fatalf("list right after creating %s: %s", name, list)
		}
	}
	if n := st.lists.Load() - before; n != 0 {
		t.Fatalf("%d lists read etcd, want every one served by the cache", n)
	}
	// Pages: the first from the cache, the next from etcd at its revision.
	first, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Limit: 15})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, rv, "default", widget("zz", 1))
	next, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Continue: gjson.GetBytes(first, "metadata.continue").String()})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(first, "items.#").Int() != 15 || gjson.GetBytes(next, "items.#").Int() != 6 || listRev(t, next) != listRev(t, first) {
		t.Fatalf("pages of one snapshot: %s then %s", names(first), names(next))
	}
}

// TestConsistentListFallsBack: with an etcd whose progress notifications
// cannot be trusted, a consistent list is read from etcd, and still sees
// every write.
func TestConsistentListFallsBack(t *testing.T) {
	ctx := context.Background()
	s, st := consistentStore(t, true)
	rv := widgets(t)
	mustCreate(t, s, rv, "default", widget("a", 1))
	if _, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{ResourceVersion: "0"}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, warehouses(t), "", `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north"}}`)
	before, fellBack := st.lists.Load(), consistentCount(t, "storage")
	start := time.Now()
	list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := consistentCount(t, "storage") - fellBack; n != 1 {
		t.Fatalf("specd_consistent_lists_total{served=storage} moved by %v, want 1", n)
	}
	if names(list) != "[a]" || st.lists.Load() == before || time.Since(start) > 2*time.Second {
		t.Fatalf("list %s after %v, %d etcd lists: want it from etcd at once", names(list), time.Since(start), st.lists.Load()-before)
	}
}
