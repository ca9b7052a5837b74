package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/watchcache"
)

// TestStoreTTL: widgets expire 2 s after their last write, through etcd;
// a watch (served by the watch cache) sees them DELETED, and warehouses,
// with no TTL, stay.
func TestStoreTTL(t *testing.T) {
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{})
	t.Cleanup(caches.Close)
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	s := engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow }, Cache: caches,
		TTL: map[string]time.Duration{"widgets.shop.example.com": 2 * time.Second}})
	w, wh := widgets(t), warehouses(t)
	ctx := context.Background()
	created := mustCreate(t, s, w, "default", widgetWith("a", "blue", ""))
	mustCreate(t, s, wh, "", `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"w"}}`)
	watch, err := s.Watch(ctx, engine.Ref{Version: w, Namespace: "default"}, engine.WatchRequest{ResourceVersion: gjson.GetBytes(created, "metadata.resourceVersion").Str})
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Stop()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev, err := watch.Next(wctx)
	if err != nil {
		t.Fatalf("no event: %v", err)
	}
	if got := fmt.Sprintf("%s %s", ev.Type, gjson.GetBytes(ev.Object, "metadata.name").Str); got != "DELETED a" {
		t.Fatalf("event %q, want DELETED a", got)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: w, Namespace: "default", Name: "a"}); !apierrors.IsNotFound(err) {
		t.Errorf("get after expiry: %v, want NotFound", err)
	}
	list, err := s.List(ctx, engine.Ref{Version: w, Namespace: "default"}, engine.ListRequest{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(gjson.GetBytes(list, "items").Array()); n != 0 {
		t.Errorf("the cache lists %d widgets after expiry, want 0", n)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: wh, Namespace: "", Name: "w"}); err != nil {
		t.Errorf("a warehouse (no TTL): %v", err)
	}
}
