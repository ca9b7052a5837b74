package gc_test

import (
	"log/slog"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/memstorage"
	"github.com/specd-io/specd/schemas"
)

// TestUndeletableResourcesAreNotScanned: a resource that serves no
// delete, kept in memory at revisions of its own (as status.specd.io's
// are), is left out of the collector's snapshot, as kube's collector
// watches only deletable resources; reading it at etcd's revision failed
// every pass, and nothing was collected.
func TestUndeletableResourcesAreNotScanned(t *testing.T) {
	cli, _ := etcdtest.StartServing(t)
	const group = "astatus.example.com" // sorted before shop.example.com
	st := memstorage.Route(etcdstorage.New(cli), engine.Keys{}.Group(group), memstorage.New(0))
	w := &world{cli: cli, store: engine.NewStore(st, engine.Options{Logger: slog.New(slog.DiscardHandler)})}
	sr, srv := resource(group, "State", "states", schemas.Cluster)
	sr.Verbs = []string{"get", "list", "watch"}
	hr, hrv := resource("shop.example.com", "Warehouse", "warehouses", schemas.Cluster)
	wr, wrv := resource("shop.example.com", "Widget", "widgets", schemas.Namespaced)
	w.warehouses, w.widgets = hrv, wrv
	w.reg = schemas.NewRegistry([]*schemas.Group{
		{Name: group, Resources: []*schemas.Resource{sr},
			Versions: []*schemas.GroupVersion{{Group: group, Version: "v1", Resources: []*schemas.ResourceVersion{srv}}}},
		{Name: "shop.example.com", Resources: []*schemas.Resource{hr, wr},
			Versions: []*schemas.GroupVersion{{Group: "shop.example.com", Version: "v1", Resources: []*schemas.ResourceVersion{hrv, wrv}}}},
	})
	w.create(t, srv, "", "state", nil)
	house := w.create(t, hrv, "", "north", nil)
	w.create(t, wrv, "default", "north-widget", nil, owner{obj: house})
	w.delete(t, hrv, "", "north", metav1.DeletePropagationBackground)
	collect(t, w.collector())
	if w.exists(t, wrv, "default", "north-widget") {
		t.Error("the widget of a deleted warehouse was not collected")
	}
	if !w.exists(t, srv, "", "state") {
		t.Error("the in-memory object is gone")
	}
}
