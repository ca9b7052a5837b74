package encryption_test

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// secretColor is in every widget the tests write: etcd must never hold it.
const secretColor = "blue"

// shop is the examples' widgets.shop.example.com/v1, served by a Store
// on etcd under its own prefix.
type shop struct {
	prefix string
	rv     *schemas.ResourceVersion
}

func newShop(t *testing.T) *shop {
	t.Helper()
	reg, err := schemas.Load("../../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	return &shop{prefix: newPrefix(), rv: reg.Group("shop.example.com").Resource("widgets").Version("v1")}
}

// store is a Store with a watch cache on etcd, its widgets encrypted with
// providers, as specd serve runs it with --encryption-provider-config.
func (s *shop) store(t *testing.T, providers string) *engine.Store {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	st := wrapped(t, s.prefix, providers)
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	t.Cleanup(caches.Close)
	return engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: s.prefix}, Cache: caches, Logger: quiet})
}

func widget(name string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"size":3,"color":%q}}`, name, secretColor)
}

// stored is what etcd holds of every widget, by name.
func (s *shop) stored(t *testing.T) map[string]string {
	t.Helper()
	resp, err := client.Get(t.Context(), s.prefix+"shop.example.com/widgets/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)[strings.LastIndexByte(string(kv.Key), '/')+1:]] = string(kv.Value)
	}
	return out
}

// wantStored checks that etcd holds exactly names, each under keyPrefix.
func (s *shop) wantStored(t *testing.T, keyPrefix string, names ...string) {
	t.Helper()
	stored := s.stored(t)
	if len(stored) != len(names) {
		t.Errorf("etcd holds %d widgets, want %d", len(stored), len(names))
	}
	for _, name := range names {
		v := stored[name]
		if !strings.HasPrefix(v, keyPrefix) || strings.Contains(v, secretColor) || strings.Contains(v, "shop.example.com") {
			t.Errorf("etcd holds widget %s as %.60q, want it encrypted under %s", name, v, keyPrefix)
		}
	}
}

// TestThroughTheEngine writes widgets through the engine and reads etcd
// itself: no plaintext, kube's prefix; every read path gives the objects
// back.
func TestThroughTheEngine(t *testing.T) {
	s := newShop(t)
	store := s.store(t, aescbcK1)
	ctx := t.Context()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: s.rv, Namespace: "default"}, Body: widget(name), Options: engine.WriteOptions{}}); err != nil {
			t.Fatal(err)
		}
	}
	s.wantStored(t, "k8s:enc:aescbc:v1:k1:", "a", "b", "c")

	got, err := store.Get(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "b"})
	if err != nil || gjson.GetBytes(got, "spec.color").Str != secretColor {
		t.Errorf("Get: %s %v", got, err)
	}
	// A list from etcd, in pages, and one from the watch cache.
	page, err := store.List(ctx, engine.Ref{Version: s.rv, Namespace: "default"}, engine.ListRequest{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := store.List(ctx, engine.Ref{Version: s.rv, Namespace: "default"}, engine.ListRequest{Continue: gjson.GetBytes(page, "metadata.continue").Str})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := store.List(ctx, engine.Ref{Version: s.rv, Namespace: ""}, engine.ListRequest{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for what, list := range map[string][]byte{"pages": append(page, rest...), "cache": cached} {
		if n := strings.Count(string(list), `"color":"`+secretColor+`"`); n != 3 {
			t.Errorf("list (%s) shows %d widgets: %s", what, n, list)
		}
	}

	// The garbage collector's scan.
	var uids []string
	if _, err := store.Upkeep().ScanResource(ctx, s.rv.Resource, 0, func(o engine.StoredObject) { uids = append(uids, o.UID) }); err != nil || len(uids) != 3 || slices.Contains(uids, "") {
		t.Errorf("the collector's scan: uids %q %v", uids, err)
	}

	// A watch: the cache's objects first, then a change.
	w, err := store.Watch(ctx, engine.Ref{Version: s.rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		ev, err := w.Next(ctx)
		if err != nil || ev.Type != storage.EventAdded || gjson.GetBytes(ev.Object, "spec.color").Str != secretColor {
			t.Fatalf("initial event %s %s %v", ev.Type, ev.Object, err)
		}
	}
	patched, err := store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: s.rv, Namespace: "default", Name: "a"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"size":4}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := w.Next(ctx)
	if err != nil || ev.Type != storage.EventModified || gjson.GetBytes(ev.Object, "spec.size").Int() != 4 {
		t.Errorf("event after the patch: %s %s %v", ev.Type, ev.Object, err)
	}
	if gjson.GetBytes(patched.Object, "spec.color").Str != secretColor {
		t.Errorf("patch answered %s", patched.Object)
	}

	if _, err := store.Delete(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "c"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev, err = w.Next(ctx); err != nil || ev.Type != storage.EventDeleted || gjson.GetBytes(ev.Object, "metadata.name").Str != "c" {
		t.Errorf("event after the delete: %s %s %v", ev.Type, ev.Object, err)
	}
	s.wantStored(t, "k8s:enc:aescbc:v1:k1:", "a", "b")
}

// TestEngineRotation: after a new first key, the objects written with the
// old one still read; a replace that changes nothing rewrites one with
// the new key, and so does the storage migration for the rest.
func TestEngineRotation(t *testing.T) {
	s := newShop(t)
	ctx := t.Context()
	old := s.store(t, aescbcK1)
	for _, name := range []string{"a", "b", "c"} {
		if _, err := old.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: s.rv, Namespace: "default"}, Body: widget(name), Options: engine.WriteOptions{}}); err != nil {
			t.Fatal(err)
		}
	}
	store := s.store(t, aescbcK2K1)
	got, err := store.Get(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	// The replace kubectl replace would send: the object as read.
	if _, err := store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: s.rv, Namespace: "default", Name: "a"}, Body: got, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if v := s.stored(t)["a"]; !strings.HasPrefix(v, "k8s:enc:aescbc:v1:k2:") {
		t.Errorf("after a replace etcd holds %.40q, want the new key's", v)
	}
	res, err := migrate.New(store.Upkeep(), slog.New(slog.DiscardHandler)).MigrateResource(ctx, s.rv.Resource, migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Migrated != 2 || res.Current != 1 {
		t.Errorf("migration: %+v, want b and c rewritten", res)
	}
	s.wantStored(t, "k8s:enc:aescbc:v1:k2:", "a", "b", "c")
	// Nothing needs the old key any more.
	if _, err := s.store(t, aescbcK2).Get(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "c"}); err != nil {
		t.Errorf("Get with the new key only: %v", err)
	}
}

// TestEngineDecryptFailure: an object whose key is gone is an error of
// every read, never a shorter list.
func TestEngineDecryptFailure(t *testing.T) {
	s := newShop(t)
	ctx := t.Context()
	if _, err := s.store(t, aescbcK1).Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: s.rv, Namespace: "default"}, Body: widget("a"), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	lost := s.store(t, aescbcK2)
	_, err := lost.Get(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "a"})
	if !errors.Is(err, encryption.ErrDecrypt) || !strings.Contains(err.Error(), `widgets.shop.example.com "default/a"`) {
		t.Errorf("Get: %v, want ErrDecrypt naming the widget", err)
	}
	if list, err := lost.List(ctx, engine.Ref{Version: s.rv, Namespace: "default"}, engine.ListRequest{}); !errors.Is(err, encryption.ErrDecrypt) {
		t.Errorf("List: %s %v, want ErrDecrypt", list, err)
	}
	if _, err := lost.Delete(ctx, engine.Ref{Version: s.rv, Namespace: "default", Name: "a"}, engine.DeleteOptions{}); !errors.Is(err, encryption.ErrDecrypt) {
		t.Errorf("Delete: %v, want ErrDecrypt", err)
	}
	// The refused delete left the object.
	if len(s.stored(t)) != 1 {
		t.Error("the widget is gone")
	}
}
