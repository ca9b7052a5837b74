package engine_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// gizmos is the Gizmo resource of group with storage version storage ("v1"
// or "v2"), and the converter of its registry.
type gizmos struct {
	group     string
	reg       *schemas.Registry
	r         *schemas.Resource
	v1, v2    *schemas.ResourceVersion
	converter converters.Converter
}

func loadGizmos(t *testing.T, group, storage string) *gizmos {
	t.Helper()
	reg, err := schemas.LoadFS(testschemas.Gizmos(group, storage))
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	r := reg.Group(group).Resource("gizmos")
	return &gizmos{group: group, reg: reg, r: r, v1: r.Version("v1"), v2: r.Version("v2"), converter: set}
}

// store is a Store of g's registry on st under prefix: a specd started
// with these schemas.
func (g *gizmos) store(st storage.Storage, prefix string) *engine.Store {
	return engine.NewStore(st, engine.Options{Prefix: prefix, Now: func() time.Time { return testNow }, Converter: g.converter,
		Logger: slog.New(slog.DiscardHandler)})
}

func (g *gizmos) objectV1(name string, size int) string {
	return testschemas.GizmoV1(g.group, name, size)
}

func (g *gizmos) objectV2(name string, size int, label string) string {
	return testschemas.GizmoV2(g.group, name, size, label)
}

var groups atomic.Int64

// newGroup is a group name of its own for a test, so that its metric
// series are its own.
func newGroup() string { return fmt.Sprintf("m%d.example.com", groups.Add(1)) }

// storedVersions reads every stored Gizmo of prefix: apiVersion by key.
func storedVersions(t *testing.T, st storage.Storage, prefix, group string) map[string]gjson.Result {
	t.Helper()
	res, err := st.List(context.Background(), prefix+group+"/gizmos/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]gjson.Result{}
	for _, kv := range res.Items {
		out[kv.Key] = gjson.ParseBytes(kv.Value)
	}
	return out
}

func newPrefix() string { return fmt.Sprintf("/test/%d/", prefixes.Add(1)) }

// TestReadAfterStorageVersionChange: objects stored in the old storage
// version are read, listed and written in every version once the storage
// version moved, before any migration.
func TestReadAfterStorageVersionChange(t *testing.T) {
	ctx := context.Background()
	group, prefix := newGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := loadGizmos(t, group, "v1")
	before := old.store(st, prefix)
	mustCreate(t, before, old.v1, "default", old.objectV1("a", 1))
	mustCreate(t, before, old.v2, "default", old.objectV2("b", 2, "kept"))

	cur := loadGizmos(t, group, "v2")
	after := cur.store(st, prefix)
	for name, want := range map[string]map[string]string{
		"a": {"apiVersion": group + "/v2", "spec.color": "red", "spec.size": "1"},
		"b": {"apiVersion": group + "/v2", "spec.color": "blue", "spec.label": "kept"},
	} {
		got, err := after.Get(ctx, cur.v2, "default", name)
		if err != nil {
			t.Fatalf("get %s in v2: %v", name, err)
		}
		expectFields(t, "get "+name+" in v2", got, want)
		if gjson.GetBytes(got, "metadata.annotations").Exists() {
			t.Errorf("get %s in v2 shows annotations: %s", name, got)
		}
	}
	got, err := after.Get(ctx, cur.v1, "default", "b")
	if err != nil {
		t.Fatal(err)
	}
	expectFields(t, "get b in v1", got, map[string]string{"apiVersion": group + "/v1", "spec.colour": "blue"})
	if gjson.GetBytes(got, "metadata.annotations").Exists() {
		t.Errorf("get b in v1 shows the bookkeeping: %s", got)
	}
	list, err := after.List(ctx, cur.v2, "default", engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range gjson.GetBytes(list, "items").Array() {
		if item.Get("apiVersion").Str != group+"/v2" || item.Get("spec.color").Str == "" {
			t.Errorf("list in v2: item %s", item.Raw)
		}
	}

	// A write in the new storage version stores the object in it, with
	// the label the old one kept aside.
	b, _ := after.Get(ctx, cur.v2, "default", "b")
	b, _ = sjson.SetBytes(b, "spec.size", 20)
	if _, err := after.Update(ctx, cur.v2, "default", "b", b, engine.WriteOptions{}); err != nil {
		t.Fatalf("update in v2: %v", err)
	}
	stored := storedVersions(t, st, prefix, group)
	if o := stored[prefix+group+"/gizmos/default/b"]; o.Get("apiVersion").Str != group+"/v2" ||
		o.Get("spec.label").Str != "kept" || o.Get("spec.size").Int() != 20 || o.Get("metadata.annotations").Exists() {
		t.Errorf("b after an update in v2: %s", o.Raw)
	}
	if o := stored[prefix+group+"/gizmos/default/a"]; o.Get("apiVersion").Str != group+"/v1" {
		t.Errorf("a was rewritten without a write: %s", o.Raw)
	}
}

func expectFields(t *testing.T, what string, obj []byte, want map[string]string) {
	t.Helper()
	for path, v := range want {
		if got := gjson.GetBytes(obj, path).String(); got != v {
			t.Errorf("%s: %s = %q, want %q\n%s", what, path, got, v, obj)
		}
	}
}
