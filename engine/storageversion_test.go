package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/internal/gizmotest"
)

func newPrefix() string { return fmt.Sprintf("/test/%d/", prefixes.Add(1)) }

// TestReadAfterStorageVersionChange: objects stored in the old storage
// version are read, listed and written in every version once the storage
// version moved, before any migration.
func TestReadAfterStorageVersionChange(t *testing.T) {
	ctx := context.Background()
	group, prefix := gizmotest.NewGroup(), newPrefix()
	st := etcdstorage.New(testClient)
	old := gizmotest.Load(t, group, "v1")
	before := old.Store(st, prefix, testNow)
	mustCreate(t, before, old.V1, "default", old.ObjectV1("a", 1))
	mustCreate(t, before, old.V2, "default", old.ObjectV2("b", 2, "kept"))

	cur := gizmotest.Load(t, group, "v2")
	after := cur.Store(st, prefix, testNow)
	for name, want := range map[string]map[string]string{
		"a": {"apiVersion": group + "/v2", "spec.color": "red", "spec.size": "1"},
		"b": {"apiVersion": group + "/v2", "spec.color": "blue", "spec.label": "kept"},
	} {
		got, err := after.Get(ctx, engine.Ref{Version: cur.V2, Namespace: "default", Name: name})
		if err != nil {
			t.Fatalf("get %s in v2: %v", name, err)
		}
		expectFields(t, "get "+name+" in v2", got, want)
		if gjson.GetBytes(got, "metadata.annotations").Exists() {
			t.Errorf("get %s in v2 shows annotations: %s", name, got)
		}
	}
	got, err := after.Get(ctx, engine.Ref{Version: cur.V1, Namespace: "default", Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	expectFields(t, "get b in v1", got, map[string]string{"apiVersion": group + "/v1", "spec.colour": "blue"})
	if gjson.GetBytes(got, "metadata.annotations").Exists() {
		t.Errorf("get b in v1 shows the bookkeeping: %s", got)
	}
	list, err := after.List(ctx, engine.Ref{Version: cur.V2, Namespace: "default"}, engine.ListRequest{})
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
	b, _ := after.Get(ctx, engine.Ref{Version: cur.V2, Namespace: "default", Name: "b"})
	b, _ = sjson.SetBytes(b, "spec.size", 20)
	if _, err := after.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: cur.V2, Namespace: "default", Name: "b"}, Body: b, Options: engine.WriteOptions{}}); err != nil {
		t.Fatalf("update in v2: %v", err)
	}
	stored := gizmotest.Stored(t, st, prefix, group)
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
