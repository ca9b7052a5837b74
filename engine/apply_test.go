package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
)

func applyOpts(manager string, force bool) engine.PatchOptions {
	return engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: manager}, Force: force}
}

func managedOf(tb testing.TB, obj []byte) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, e := range gjson.GetBytes(obj, "metadata.managedFields").Array() {
		key := e.Get("manager").String() + "/" + e.Get("operation").String()
		if sub := e.Get("subresource").String(); sub != "" {
			key += "/" + sub
		}
		out[key] = e.Get("fieldsV1").Raw
	}
	return out
}

func TestApply(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := patchWidgets(t)
	ref := loadExchange(t, "38")

	// 38: an apply of an object that does not exist creates it.
	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: ref.requestBody(), Options: applyOpts("tester", false)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created {
		t.Error("apply did not report a create")
	}
	sameAsReference(t, res.Object, "38")

	// The same manager applies a change and a new field, in YAML.
	y := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: 4\n  tags: [p, q]\n"
	res, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("tester", false)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || gjson.GetBytes(res.Object, "spec.size").Int() != 4 || gjson.GetBytes(res.Object, "spec.tags.#").Int() != 2 {
		t.Fatalf("second apply: %s", res.Object)
	}
	sameJSON(t, []byte(managedOf(t, res.Object)["tester/Apply"]), []byte(`{"f:spec":{"f:size":{},"f:tags":{}}}`))

	// Fields the manager no longer applies are removed.
	y = "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: 4\n"
	res, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("tester", false)})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.tags").Exists() {
		t.Fatalf("tags not removed: %s", res.Object)
	}

	// Another manager that sets size conflicts.
	other := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: 7\n"
	before := mustGet(t, s, rv, "w2")
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: []byte(other), Options: applyOpts("other", false)})
	sameJSON(t, statusOf(t, err), []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Apply failed with 1 conflict: conflict with \"tester\": .spec.size","reason":"Conflict",
		"details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"tester\"","field":".spec.size"}]},"code":409}`))
	if after := mustGet(t, s, rv, "w2"); string(after) != string(before) {
		t.Fatal("a conflicting apply changed the object")
	}

	// With force it takes the field over.
	res, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: []byte(other), Options: applyOpts("other", true)})
	if err != nil {
		t.Fatal(err)
	}
	m := managedOf(t, res.Object)
	if gjson.GetBytes(res.Object, "spec.size").Int() != 7 || m["other/Apply"] != `{"f:spec":{"f:size":{}}}` || m["tester/Apply"] != "" {
		t.Fatalf("forced apply: %s", res.Object)
	}

	// An update manager's fields conflict with its name, version and time.
	if _, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"color":"blue"}}`), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "kubectl-edit"}}}); err != nil {
		t.Fatal(err)
	}
	green := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  color: green\n"
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w2"}, Type: engine.ApplyPatchType, Patch: []byte(green), Options: applyOpts("other", false)})
	if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "kubectl-edit" using shop.example.com/v1: .spec.color` {
		t.Fatalf("got %v", err)
	}
}

func TestApplyErrors(t *testing.T) {
	tests := map[string]struct {
		config string
		opts   engine.PatchOptions
		reason metav1.StatusReason
		msg    string
	}{
		"wrong version":    {config: "apiVersion: shop.example.com/v2\nkind: Widget\nmetadata: {name: w1}\n", reason: metav1.StatusReasonBadRequest, msg: "invalid object type: shop.example.com/v2, Kind=Widget"},
		"managedFields":    {config: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1, managedFields: []}\n", reason: metav1.StatusReasonBadRequest, msg: "metadata.managedFields must be nil"},
		"not YAML":         {config: "a: [", reason: metav1.StatusReasonBadRequest},
		"invalid value":    {config: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 0}\n", reason: metav1.StatusReasonInvalid},
		"other name":       {config: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w9}\nspec: {size: 2}\n", reason: metav1.StatusReasonBadRequest},
		"strict duplicate": {config: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 2, size: 3}\n", reason: metav1.StatusReasonBadRequest, opts: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict}}},
		// kube's field manager cannot type such a configuration, and says so.
		"strict unknown": {config: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default, nope: 1}\nspec: {size: 2, extra: x}\nother: y\n",
			reason: metav1.StatusReasonBadRequest, opts: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict}},
			msg: "failed to create typed patch object (default/w1; shop.example.com/v1, Kind=Widget): errors:\n  .metadata.nope: field not declared in schema\n  .other: field not declared in schema\n  .spec.extra: field not declared in schema"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := newStore(t)
			rv := patchWidgets(t)
			mustCreate(t, s, rv, "default", w1)
			before := mustGet(t, s, rv, "w1")
			tc.opts.FieldManager, tc.opts.Force = "m", true
			_, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.ApplyPatchType, Patch: []byte(tc.config), Options: tc.opts})
			if got := apierrors.ReasonForError(err); got != tc.reason {
				t.Fatalf("reason %q (%v), want %q", got, err, tc.reason)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("message %q, want %q", err.Error(), tc.msg)
			}
			if after := mustGet(t, s, rv, "w1"); string(after) != string(before) {
				t.Fatal("object changed")
			}
		})
	}
}

func TestApplyStatus(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := patchWidgets(t)
	mustCreate(t, s, rv, "default", w1)
	y := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 50}\nstatus: {ready: true}\n"
	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: "status"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("ctrl", false)})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.size").Int() != 3 || !gjson.GetBytes(res.Object, "status.ready").Bool() {
		t.Fatalf("status apply: %s", res.Object)
	}
	sameJSON(t, []byte(managedOf(t, res.Object)["ctrl/Apply/status"]), []byte(`{"f:status":{"f:ready":{}}}`))

	// On the main endpoint status is not the applier's.
	res, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("main", true)})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, []byte(managedOf(t, res.Object)["main/Apply"]), []byte(`{"f:spec":{"f:size":{}}}`))
	if gjson.GetBytes(res.Object, "spec.size").Int() != 50 {
		t.Fatalf("main apply: %s", res.Object)
	}
}

// TestManagedFieldsOnWrites checks the Update entries of create, update
// and status update, the reset of managedFields, and that a write that
// changes nothing keeps the entries' times.
func TestManagedFieldsOnWrites(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := patchWidgets(t)
	created, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(w1), Options: engine.WriteOptions{FieldManager: "creator"}})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, []byte(managedOf(t, created.Object)["creator/Update"]),
		[]byte(`{"f:metadata":{"f:labels":{".":{},"f:tier":{}}},"f:spec":{".":{},"f:color":{},"f:size":{},"f:tags":{}}}`))

	upd := setJSON(t, string(created.Object), "spec.size", 8)
	res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: []byte(upd), Options: engine.WriteOptions{FieldManager: "editor"}})
	if err != nil {
		t.Fatal(err)
	}
	m := managedOf(t, res.Object)
	sameJSON(t, []byte(m["editor/Update"]), []byte(`{"f:spec":{"f:size":{}}}`))
	sameJSON(t, []byte(m["creator/Update"]), []byte(`{"f:metadata":{"f:labels":{".":{},"f:tier":{}}},"f:spec":{".":{},"f:color":{},"f:tags":{}}}`))

	st := setJSON(t, string(res.Object), "status.ready", true)
	res, err = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: "status"}, Body: []byte(st), Options: engine.WriteOptions{FieldManager: "ctrl"}})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, []byte(managedOf(t, res.Object)["ctrl/Update/status"]), []byte(`{"f:status":{".":{},"f:ready":{}}}`))

	// The same object again: nothing written.
	again, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: res.Object, Options: engine.WriteOptions{FieldManager: "editor"}})
	if err != nil {
		t.Fatal(err)
	}
	if rvOf(again.Object) != rvOf(res.Object) {
		t.Errorf("an update that changes nothing was written")
	}

	// An empty list resets them: the object is no longer tracked.
	var obj map[string]any
	_ = json.Unmarshal(again.Object, &obj)
	obj["metadata"].(map[string]any)["managedFields"] = []any{}
	b, _ := json.Marshal(obj)
	res, err = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: b, Options: engine.WriteOptions{FieldManager: "editor"}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "metadata.managedFields").Exists() {
		t.Fatalf("managedFields not reset: %s", res.Object)
	}
	// The first apply then records what was there as before-first-apply.
	y := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 9}\n"
	ap, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("a", true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := managedOf(t, ap.Object)["before-first-apply/Update"]; !ok {
		t.Fatalf("no before-first-apply entry: %s", ap.Object)
	}
}

// TestApplyAfterClientSideApply checks kube-apiserver's upgrade from
// client-side apply: kubectl's server-side apply takes over the fields the
// last-applied annotation shows, and keeps the annotation in step; another
// manager still conflicts.
func TestApplyAfterClientSideApply(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := patchWidgets(t)
	last := `{\"apiVersion\":\"shop.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"annotations\":{},\"name\":\"a\",\"namespace\":\"default\"},\"spec\":{\"size\":4,\"tags\":[\"a\"]}}`
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"a","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"` + last + `"}},"spec":{"size":4,"tags":["a"]}}`
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{FieldManager: "kubectl-client-side-apply"}}); err != nil {
		t.Fatal(err)
	}
	y := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 5}\n"
	if _, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "a"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("other", false)}); !apierrors.IsConflict(err) {
		t.Fatalf("another manager: %v, want a conflict", err)
	}
	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "a"}, Type: engine.ApplyPatchType, Patch: []byte(y), Options: applyOpts("kubectl", false)})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.size").Int() != 5 || gjson.GetBytes(res.Object, "spec.tags.#").Int() != 1 {
		t.Fatalf("kubectl's apply: %s", res.Object)
	}
	got := gjson.GetBytes(res.Object, `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`).String()
	sameJSON(t, []byte(got), []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":5}}`))
}
