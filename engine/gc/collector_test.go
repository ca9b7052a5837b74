package gc_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// world is a store with two groups: shop.example.com (namespaced Widget,
// cluster-scoped Warehouse) and library.example.com (namespaced Book).
type world struct {
	cli                        *clientv3.Client
	endpoints                  []string // the etcd socket, for a second client
	store                      *engine.Store
	reg                        *schemas.Registry
	widgets, warehouses, books *schemas.ResourceVersion
}

func resource(group, kind, plural string, scope schemas.Scope) (*schemas.Resource, *schemas.ResourceVersion) {
	r := &schemas.Resource{Group: group, Kind: kind, ListKind: kind + "List", Plural: plural, Scope: scope, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true}
	r.Versions = []*schemas.ResourceVersion{rv}
	return r, rv
}

func newWorld(t testing.TB) *world {
	t.Helper()
	return newWorldWith(t, engine.Options{Logger: slog.New(slog.DiscardHandler)})
}

// newWorldWith is newWorld with a Store made with opts.
func newWorldWith(t testing.TB, opts engine.Options) *world {
	t.Helper()
	cli, endpoints := etcdtest.StartServing(t)
	w := &world{cli: cli, endpoints: endpoints, store: engine.NewStore(etcdstorage.New(cli), opts)}
	wr, wrv := resource("shop.example.com", "Widget", "widgets", schemas.Namespaced)
	hr, hrv := resource("shop.example.com", "Warehouse", "warehouses", schemas.Cluster)
	br, brv := resource("library.example.com", "Book", "books", schemas.Namespaced)
	w.widgets, w.warehouses, w.books = wrv, hrv, brv
	shop := &schemas.Group{Name: "shop.example.com", Resources: []*schemas.Resource{hr, wr},
		Versions: []*schemas.GroupVersion{{Group: "shop.example.com", Version: "v1", Resources: []*schemas.ResourceVersion{hrv, wrv}}}}
	lib := &schemas.Group{Name: "library.example.com", Resources: []*schemas.Resource{br},
		Versions: []*schemas.GroupVersion{{Group: "library.example.com", Version: "v1", Resources: []*schemas.ResourceVersion{brv}}}}
	w.reg = schemas.NewRegistry([]*schemas.Group{lib, shop})
	return w
}

func (w *world) collector() *gc.Collector {
	return gc.New(w.store.Upkeep(), func() *schemas.Registry { return w.reg }, gc.Options{Logger: slog.New(slog.DiscardHandler)})
}

// create makes an object; owners are "uid:kind/name:block" triples given
// as objects returned by create.
func (w *world) create(t *testing.T, rv *schemas.ResourceVersion, ns, name string, finalizers []string, owners ...owner) []byte {
	t.Helper()
	refs := "[]"
	if len(owners) > 0 {
		refs = "["
		for i, o := range owners {
			if i > 0 {
				refs += ","
			}
			refs += fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"blockOwnerDeletion":%v}`,
				gjson.GetBytes(o.obj, "apiVersion").String(), gjson.GetBytes(o.obj, "kind").String(),
				gjson.GetBytes(o.obj, "metadata.name").String(), gjson.GetBytes(o.obj, "metadata.uid").String(), o.block)
		}
		refs += "]"
	}
	fs := "[]"
	if len(finalizers) > 0 {
		fs = fmt.Sprintf("[%q]", finalizers[0])
	}
	body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"ownerReferences":%s,"finalizers":%s}}`,
		rv.APIVersion(), rv.Resource.Kind, name, refs, fs)
	res, err := w.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ns}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return res.Object
}

type owner struct {
	obj   []byte
	block bool
}

func (w *world) exists(t *testing.T, rv *schemas.ResourceVersion, ns, name string) bool {
	t.Helper()
	_, err := w.store.Get(context.Background(), engine.Ref{Version: rv, Namespace: ns, Name: name})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func (w *world) get(t *testing.T, rv *schemas.ResourceVersion, ns, name string) []byte {
	t.Helper()
	b, err := w.store.Get(context.Background(), engine.Ref{Version: rv, Namespace: ns, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (w *world) delete(t *testing.T, rv *schemas.ResourceVersion, ns, name string, policy metav1.DeletionPropagation) {
	t.Helper()
	if _, err := w.store.Delete(context.Background(), engine.Ref{Version: rv, Namespace: ns, Name: name}, engine.DeleteOptions{PropagationPolicy: policy}); err != nil {
		t.Fatal(err)
	}
}

func collect(t *testing.T, c *gc.Collector) {
	t.Helper()
	if _, err := c.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestBackgroundAcrossGroups(t *testing.T) {
	w := newWorld(t)
	wh := w.create(t, w.warehouses, "", "north", nil)
	wd := w.create(t, w.widgets, "default", "w", nil, owner{wh, false})
	w.create(t, w.books, "default", "b", nil, owner{wd, true})
	w.create(t, w.books, "default", "keep", nil)
	other := w.create(t, w.widgets, "default", "other", nil)
	w.create(t, w.books, "default", "two-owners", nil, owner{wd, false}, owner{other, false})
	w.create(t, w.books, "default", "orphaned-before", nil, owner{[]byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"gone","uid":"nope"}}`), false})

	c := w.collector()
	collect(t, c)
	if w.exists(t, w.books, "default", "orphaned-before") {
		t.Fatal("a dependent of a missing owner is kept")
	}
	if !w.exists(t, w.widgets, "default", "w") || !w.exists(t, w.books, "default", "b") {
		t.Fatal("dependents of existing owners were deleted")
	}

	w.delete(t, w.warehouses, "", "north", "")
	collect(t, c)
	for _, name := range []string{"w"} {
		if w.exists(t, w.widgets, "default", name) {
			t.Fatalf("widget %s survived its owner", name)
		}
	}
	if w.exists(t, w.books, "default", "b") {
		t.Fatal("book b survived its owner's owner")
	}
	if !w.exists(t, w.books, "default", "keep") || !w.exists(t, w.widgets, "default", "other") {
		t.Fatal("unrelated objects were deleted")
	}
	tw := w.get(t, w.books, "default", "two-owners")
	if refs := gjson.GetBytes(tw, "metadata.ownerReferences.#.name").String(); refs != `["other"]` {
		t.Fatalf("two-owners keeps references %s, want only other", refs)
	}
}

func TestForeground(t *testing.T) {
	w := newWorld(t)
	wd := w.create(t, w.widgets, "default", "w", nil)
	w.create(t, w.books, "default", "blocking", []string{"x.io/hold"}, owner{wd, true})
	w.create(t, w.books, "default", "loose", nil, owner{wd, false})

	w.delete(t, w.widgets, "default", "w", metav1.DeletePropagationForeground)
	c := w.collector()
	collect(t, c)
	got := w.get(t, w.widgets, "default", "w")
	if gjson.GetBytes(got, "metadata.finalizers").String() != `["foregroundDeletion"]` {
		t.Fatalf("owner %s, want it held by foregroundDeletion", got)
	}
	if w.exists(t, w.books, "default", "loose") {
		t.Fatal("the non-blocking dependent is kept")
	}
	b := w.get(t, w.books, "default", "blocking")
	if !gjson.GetBytes(b, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("the blocking dependent is not terminating: %s", b)
	}
	// Release the blocking dependent's own finalizer: then both go.
	body := fmt.Sprintf(`{"apiVersion":"library.example.com/v1","kind":"Book","metadata":{"name":"blocking","resourceVersion":%q,"ownerReferences":%s}}`,
		gjson.GetBytes(b, "metadata.resourceVersion").String(), gjson.GetBytes(b, "metadata.ownerReferences").Raw)
	if _, err := w.store.Update(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: w.books, Namespace: "default", Name: "blocking"}, Body: []byte(body), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	collect(t, c)
	if w.exists(t, w.books, "default", "blocking") || w.exists(t, w.widgets, "default", "w") {
		t.Fatal("the cascade did not finish")
	}
}

func TestOrphan(t *testing.T) {
	w := newWorld(t)
	wd := w.create(t, w.widgets, "default", "w", nil)
	w.create(t, w.books, "default", "b", nil, owner{wd, true})
	w.delete(t, w.widgets, "default", "w", metav1.DeletePropagationOrphan)
	collect(t, w.collector())
	if w.exists(t, w.widgets, "default", "w") {
		t.Fatal("the owner is kept")
	}
	b := w.get(t, w.books, "default", "b")
	if gjson.GetBytes(b, "metadata.ownerReferences").Exists() {
		t.Fatalf("the orphan keeps its reference: %s", b)
	}
}

// TestRestart: a collector that stops in the middle of a cascade leaves
// its state in etcd; a new one finishes the job.
func TestRestart(t *testing.T) {
	w := newWorld(t)
	wh := w.create(t, w.warehouses, "", "north", nil)
	prev := wh
	for i := range 5 { // a chain five deep, alternating groups
		rv := w.books
		if i%2 == 1 {
			rv = w.widgets
		}
		prev = w.create(t, rv, "default", fmt.Sprintf("level%d", i), nil, owner{prev, true})
	}
	w.delete(t, w.warehouses, "", "north", metav1.DeletePropagationForeground)
	first := w.collector()
	if _, err := first.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !w.exists(t, w.warehouses, "", "north") {
		t.Fatal("the owner went before its dependents")
	}
	// The first collector is gone; a new one on the same etcd takes over.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	second := w.collector()
	done := make(chan struct{})
	go func() { second.Run(ctx); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for w.exists(t, w.warehouses, "", "north") {
		if time.Now().After(deadline) {
			t.Fatal("the cascade did not finish after the restart")
		}
		second.Trigger()
		time.Sleep(20 * time.Millisecond)
	}
	for i := range 5 {
		rv := w.books
		if i%2 == 1 {
			rv = w.widgets
		}
		if w.exists(t, rv, "default", fmt.Sprintf("level%d", i)) {
			t.Fatalf("level%d survived", i)
		}
	}
	cancel()
	<-done
}

func TestCollectorSkipsMovedObjects(t *testing.T) {
	w := newWorld(t)
	o := engine.StoredObject{Resource: w.widgets.Resource, Namespace: "default", Name: "w"}
	w.create(t, w.widgets, "default", "w", nil)
	err := w.store.Upkeep().RemoveFinalizer(context.Background(), o, "x")
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a write at a stale revision: %v", err)
	}
}
