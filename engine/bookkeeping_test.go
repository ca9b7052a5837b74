package engine_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// The Frobber of these tests: v2, the storage version, holds a list of
// params, a color and status conditions that v1 cannot; v1 has a legacy
// flag that v2 cannot. Each version's extra data rides in the other's
// bookkeeping annotation.
var frobFiles = fstest.MapFS{
	"frob.example.com/v1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: Frobbers, version: v1}
x-specd: {group: frob.example.com}
components:
  schemas:
    Frobber:
      type: object
      x-specd-resource:
        subresources: {status: {}}
        conversion:
          rules:
          - rename: {from: spec.height, to: spec.heightInInches}
          - toList: {from: spec.param, to: spec.params}
          - constant: {from: spec.legacy, value: false}
      properties:
        spec:
          type: object
          properties:
            height: {type: integer}
            param: {type: string}
            legacy: {type: boolean}
        status:
          type: object
          properties:
            phase: {type: string}
`)},
	"frob.example.com/v2.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: Frobbers, version: v2}
x-specd: {group: frob.example.com}
components:
  schemas:
    Frobber:
      type: object
      x-specd-resource:
        storage: true
        subresources: {status: {}}
      properties:
        spec:
          type: object
          properties:
            heightInInches: {type: integer}
            params: {type: array, items: {type: string}}
            color: {type: string}
        status:
          type: object
          properties:
            phase: {type: string}
            conditions:
              type: array
              items: {type: object, properties: {type: {type: string}}}
`)},
}

type frobs struct {
	s      *engine.Store
	st     storage.Storage
	prefix string
	v1, v2 *schemas.ResourceVersion
}

func newFrobs(t *testing.T) *frobs {
	t.Helper()
	reg, err := schemas.LoadFS(frobFiles)
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(caches.Close)
	prefix := newPrefix()
	s := engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow }, Converter: set,
		Cache: caches, Logger: slog.New(slog.DiscardHandler)})
	r := reg.Group("frob.example.com").Resource("frobbers")
	return &frobs{s: s, st: st, prefix: prefix, v1: r.Version("v1"), v2: r.Version("v2")}
}

// stored is the stored bytes of one frobber.
func (f *frobs) stored(t *testing.T, name string) gjson.Result {
	t.Helper()
	kv, err := f.st.Get(context.Background(), f.prefix+"frob.example.com/frobbers/default/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(kv.Value)
}

// noBookkeeping fails if a client-facing answer shows the annotation.
func noBookkeeping(t *testing.T, what string, b []byte) {
	t.Helper()
	if strings.Contains(string(b), converters.Annotation) {
		t.Errorf("%s shows the bookkeeping: %s", what, b)
	}
}

// wide is what v2 holds of f that v1 cannot.
func (f *frobs) checkWide(t *testing.T, what, name string, height int64) {
	t.Helper()
	got, err := f.s.Get(context.Background(), engine.Ref{Version: f.v2, Namespace: "default", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, what+": get in v2", got)
	o := gjson.ParseBytes(got)
	if o.Get("spec.params").Raw != `["p1","p2"]` || o.Get("spec.color").Str != "red" ||
		o.Get("status.conditions.0.type").Str != "Ready" || o.Get("spec.heightInInches").Int() != height {
		t.Errorf("%s: v2 object %s, want params [p1,p2], color red, a Ready condition, height %d", what, got, height)
	}
	// The storage version holds all of it: nothing of v2 is kept aside.
	if bk := f.stored(t, name).Get(`metadata.annotations.specd\.io/conversion-data`); gjson.Get(bk.Str, "v2").Exists() {
		t.Errorf("%s: stored with v2 data kept aside: %s", what, bk.Str)
	}
}

// TestBookkeepingHidden: a v1 client never sees the data of v2 kept in
// the annotation, on any read path, and every kind of write it makes
// from what it read keeps that data.
func TestBookkeepingHidden(t *testing.T) {
	ctx := context.Background()
	f := newFrobs(t)
	w, err := f.s.Watch(ctx, engine.Ref{Version: f.v1, Namespace: "default"}, engine.WatchRequest{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created := mustCreate(t, f.s, f.v1, "default",
		`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"f","annotations":{"keep":"me"}},"spec":{"height":10,"param":"p1"}}`)
	noBookkeeping(t, "create answer", created)

	// A v2 client adds what v1 cannot hold.
	v2obj, _ := f.s.Get(ctx, engine.Ref{Version: f.v2, Namespace: "default", Name: "f"})
	v2obj, _ = sjson.SetBytes(v2obj, "spec.params", []string{"p1", "p2"})
	v2obj, _ = sjson.SetBytes(v2obj, "spec.color", "red")
	res, err := f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v2, Namespace: "default", Name: "f"}, Body: v2obj, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := sjson.SetRawBytes(res.Object, "status", []byte(`{"conditions":[{"type":"Ready"}]}`))
	if _, err := f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v2, Namespace: "default", Name: "f", Subresource: "status"}, Body: st, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	f.checkWide(t, "after the v2 writes", "f", 10)

	// Reads in v1.
	got, err := f.s.Get(ctx, engine.Ref{Version: f.v1, Namespace: "default", Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, "get in v1", got)
	if gjson.GetBytes(got, "metadata.annotations.keep").Str != "me" {
		t.Errorf("get in v1 lost the client's own annotation: %s", got)
	}
	list, err := f.s.List(ctx, engine.Ref{Version: f.v1, Namespace: "default"}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, "list in v1", list)
	for range 3 { // ADDED, and the two v2 writes
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		noBookkeeping(t, "watch event in v1", ev.Object)
	}

	// Writes in v1, each from what v1 shows.
	height := int64(10)
	writes := map[string]func(cur []byte) ([]byte, error){
		"update": func(cur []byte) ([]byte, error) {
			body, _ := sjson.SetBytes(cur, "spec.height", height)
			r, err := f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f"}, Body: body, Options: engine.WriteOptions{}})
			return r.Object, err
		},
		"merge patch": func([]byte) ([]byte, error) {
			r, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f"}, Type: engine.MergePatchType, Patch: fmt.Appendf(nil, `{"spec":{"height":%d},"metadata":{"annotations":null}}`, height), Options: engine.PatchOptions{}})

			return r.Object, err
		},
		"json patch": func([]byte) ([]byte, error) {
			r, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f"}, Type: engine.JSONPatchType, Patch: fmt.Appendf(nil, `[{"op":"replace","path":"/spec/height","value":%d}]`, height), Options: engine.PatchOptions{}})

			return r.Object, err
		},
		"apply": func([]byte) ([]byte, error) {
			r, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f"}, Type: engine.ApplyPatchType, Patch: fmt.Appendf(nil,
				`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"f"},"spec":{"height":%d,"param":"p1"}}`, height), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "applier"}, Force: true}})

			return r.Object, err
		},
		"status update": func(cur []byte) ([]byte, error) {
			body, _ := sjson.SetBytes(cur, "status.phase", fmt.Sprint("phase", height))
			r, err := f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f", Subresource: "status"}, Body: body, Options: engine.WriteOptions{}})
			return r.Object, err
		},
		"status merge patch": func([]byte) ([]byte, error) {
			r, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "f", Subresource: "status"}, Type: engine.MergePatchType, Patch: fmt.Appendf(nil, `{"status":{"phase":"p%d"}}`, height), Options: engine.PatchOptions{}})

			return r.Object, err
		},
	}
	for _, name := range slices.Sorted(maps.Keys(writes)) {
		height++
		cur, err := f.s.Get(ctx, engine.Ref{Version: f.v1, Namespace: "default", Name: "f"})
		if err != nil {
			t.Fatal(err)
		}
		out, err := writes[name](cur)
		if err != nil {
			t.Fatalf("%s in v1: %v", name, err)
		}
		noBookkeeping(t, name+" answer", out)
		want := height
		if strings.HasPrefix(name, "status") {
			height--
			want = height // status writes leave spec alone
		}
		f.checkWide(t, "after a v1 "+name, "f", want)
	}
	// The bookkeeping is nobody's field.
	if mf := f.stored(t, "f").Get("metadata.managedFields").Raw; strings.Contains(mf, "conversion-data") {
		t.Errorf("managed fields name the bookkeeping: %s", mf)
	}
}

// TestBookkeepingOfTheStorageVersion: v1's own data that v2 (the storage
// version) cannot hold is kept on the stored object, hidden from v2
// clients, and survives their writes.
func TestBookkeepingOfTheStorageVersion(t *testing.T) {
	ctx := context.Background()
	f := newFrobs(t)
	mustCreate(t, f.s, f.v1, "default",
		`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"g"},"spec":{"height":1,"param":"p","legacy":true}}`)
	if !f.stored(t, "g").Get("metadata.annotations").Exists() {
		t.Fatalf("legacy: true not kept aside in storage: %s", f.stored(t, "g").Raw)
	}
	got, err := f.s.Get(ctx, engine.Ref{Version: f.v2, Namespace: "default", Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, "get in v2", got)
	if gjson.GetBytes(got, "metadata.annotations").Exists() {
		t.Errorf("get in v2 shows an empty annotations map: %s", got)
	}
	body, _ := sjson.SetBytes(got, "spec.color", "red")
	res, err := f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v2, Namespace: "default", Name: "g"}, Body: body, Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, "update answer in v2", res.Object)
	res2, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v2, Namespace: "default", Name: "g"}, Type: engine.ApplyPatchType, Patch: []byte(`{"apiVersion":"frob.example.com/v2","kind":"Frobber","metadata":{"name":"g"},"spec":{"heightInInches":5}}`), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "applier"}, Force: true}})

	if err != nil {
		t.Fatal(err)
	}
	noBookkeeping(t, "apply answer in v2", res2.Object)
	v1, _ := f.s.Get(ctx, engine.Ref{Version: f.v1, Namespace: "default", Name: "g"})
	if o := gjson.ParseBytes(v1); !o.Get("spec.legacy").Bool() || o.Get("spec.height").Int() != 5 {
		t.Errorf("v1 after v2 writes: %s, want legacy true and height 5", v1)
	}
	noBookkeeping(t, "get in v1", v1)
}

// TestBookkeepingFromClientsIgnored: a client cannot write the
// annotation: its value is dropped, with a warning, on create, update,
// patch and apply; the data specd keeps is untouched.
func TestBookkeepingFromClientsIgnored(t *testing.T) {
	ctx := context.Background()
	f := newFrobs(t)
	forged, _ := sjson.Set(`{}`, "v2", map[string]any{"fields": []any{map[string]any{"p": []string{"spec", "color"}, "v": "forged"}}})
	annotations := fmt.Sprintf(`{%q:%q}`, converters.Annotation, forged)
	res, err := f.s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default"}, Body: fmt.Appendf(nil,
		`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"h","annotations":%s},"spec":{"height":1}}`, annotations), Options: engine.WriteOptions{}})

	if err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "create", res.Warnings, res.Object)
	if c := f.stored(t, "h").Get("spec.color"); c.Exists() {
		t.Errorf("a forged annotation wrote spec.color = %s", c.Raw)
	}

	cur, _ := f.s.Get(ctx, engine.Ref{Version: f.v1, Namespace: "default", Name: "h"})
	body, _ := sjson.SetRawBytes(cur, "metadata.annotations", []byte(annotations))
	// Ignored, not refused, even with strict field validation.
	strict := engine.WriteOptions{FieldValidation: engine.FieldValidationStrict}
	res, err = f.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "h"}, Body: body, Options: strict})
	if err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "update", res.Warnings, res.Object)

	pr, err := f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "h"}, Type: engine.MergePatchType, Patch: fmt.Appendf(nil, `{"metadata":{"annotations":%s}}`, annotations), Options: engine.PatchOptions{WriteOptions: strict}})

	if err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "merge patch", pr.Warnings, pr.Object)

	pr, err = f.s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: f.v1, Namespace: "default", Name: "h"}, Type: engine.ApplyPatchType, Patch: fmt.Appendf(nil,
		`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"h","annotations":%s},"spec":{"height":2}}`, annotations), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "applier"}, Force: true}})

	if err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "apply", pr.Warnings, pr.Object)
	stored := f.stored(t, "h")
	if stored.Get("spec.color").Exists() || strings.Contains(stored.Raw, "forged") {
		t.Errorf("stored after forged writes: %s", stored.Raw)
	}
	if mf := stored.Get("metadata.managedFields").Raw; strings.Contains(mf, "conversion-data") {
		t.Errorf("managed fields name the bookkeeping: %s", mf)
	}
}

func checkIgnored(t *testing.T, what string, warnings []string, obj []byte) {
	t.Helper()
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, converters.Annotation) }) {
		t.Errorf("%s: warnings %q do not name the ignored annotation", what, warnings)
	}
	noBookkeeping(t, what+" answer", obj)
}

// TestBookkeepingHiddenFromPlugins: a validation plugin sees the object in
// the storage version as a client of that version would, without the
// annotation that carries what only other versions hold.
func TestBookkeepingHiddenFromPlugins(t *testing.T) {
	ctx := context.Background()
	reg, err := schemas.LoadFS(frobFiles)
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	plugins := &fakePlugins{}
	s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: newPrefix()}, Now: func() time.Time { return testNow },
		Converter: set, Admission: func(*engine.Store) hook.Admission { return plugins }, Logger: slog.New(slog.DiscardHandler)})
	r := reg.Group("frob.example.com").Resource("frobbers")
	v1, v2 := r.Version("v1"), r.Version("v2")
	v2.Hooks = &schemas.Hooks{Validate: "frob-policy", FailurePolicy: schemas.FailurePolicyFail, Timeout: time.Second}

	// legacy: true is v1's alone: stored in v2, it rides in the annotation.
	created, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: v1, Namespace: "default"}, Body: []byte(`{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"f"},"spec":{"height":3,"legacy":true}}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := sjson.SetBytes(created.Object, "spec.height", 4)
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: v1, Namespace: "default", Name: "f"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	calls := plugins.took()
	if len(calls) != 2 {
		t.Fatalf("%d validate calls, want the create's and the update's", len(calls))
	}
	for _, c := range calls {
		noBookkeeping(t, c.req.Operation+" object", c.req.Object)
		noBookkeeping(t, c.req.Operation+" old object", c.req.OldObject)
		if c.req.Version != "v2" || gjson.GetBytes(c.req.Object, "spec.heightInInches").Int() == 0 {
			t.Errorf("%s: the plugin saw %s %s, want the v2 object", c.req.Operation, c.req.Version, c.req.Object)
		}
	}
	got, err := s.Get(ctx, engine.Ref{Version: v1, Namespace: "default", Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.GetBytes(got, "spec.legacy").Bool() {
		t.Errorf("legacy lost: %s", got)
	}
}
