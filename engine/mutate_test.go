package engine_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/schemas"
)

// notesSchema has the shape of a core/v1 Secret: data (base64),
// stringData (write-only, merged into data by the mutator).
const notesSchema = `{
  "type": "object",
  "properties": {
    "data": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
    "stringData": {"type": "object", "additionalProperties": {"type": "string"}},
    "type": {"type": "string"}
  }
}`

// notes is a namespaced resource with notesSchema.
func notes(tb testing.TB) *schemas.ResourceVersion {
	tb.Helper()
	r := &schemas.Resource{Group: "notes.example.com", Kind: "Note", ListKind: "NoteList", Plural: "notes", Singular: "note",
		Scope: schemas.Namespaced, StorageVersion: "v1"}
	var oa openapi3.Schema
	if err := json.Unmarshal([]byte(notesSchema), &oa); err != nil {
		tb.Fatal(err)
	}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, Schema: compile(tb, notesSchema), OpenAPI: &oa}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

// mergeStringData is a Mutator like a Secret's: stringData goes into
// data, base64-encoded; "bad" in stringData is a decoding error, "teapot"
// a Status error.
func mergeStringData(version string, obj map[string]any) ([]string, error) {
	sd, _ := obj["stringData"].(map[string]any)
	if sd["bad"] != nil {
		return nil, errors.New("illegal stuff")
	}
	if sd["teapot"] != nil {
		return nil, apierrors.NewForbidden(notesGR, "", errors.New("teapot"))
	}
	delete(obj, "stringData")
	if len(sd) == 0 {
		return nil, nil
	}
	data, _ := obj["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
		obj["data"] = data
	}
	for k, v := range sd {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
	}
	return []string{"merged in " + version}, nil
}

func notesStore(tb testing.TB) *engine.Store {
	return engine.NewStore(etcdstorage.New(testClient), engine.Options{
		Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Now: func() time.Time { return testNow },
		Mutators: map[string]engine.Mutator{"notes.notes.example.com": mergeStringData}})
}

func note(name, fields string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"notes.example.com/v1","kind":"Note","metadata":{"name":%q},%s}`, name, fields))
}

// TestMutatorOnWrites: a create, an update and a merge patch all store
// and answer the mutated object, and the managed fields record what was
// stored (data), as kube-apiserver records a Secret's update.
func TestMutatorOnWrites(t *testing.T) {
	ctx := context.Background()
	s, rv := notesStore(t), notes(t)
	res, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("n", `"stringData":{"a":"b"}`), Options: engine.WriteOptions{FieldManager: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	wantMutated(t, res.Object, "data.a", "Yg==")
	if len(res.Warnings) != 1 || res.Warnings[0] != "merged in v1" {
		t.Errorf("warnings = %q", res.Warnings)
	}
	sameJSON(t, []byte(managedOf(t, res.Object)["m/Update"]), []byte(`{"f:data":{".":{},"f:a":{}}}`))

	body, _ := json.Marshal(map[string]any{"apiVersion": "notes.example.com/v1", "kind": "Note",
		"metadata": map[string]any{"name": "n", "resourceVersion": rvOf(res.Object)},
		"data":     map[string]any{"a": "YQ=="}, "stringData": map[string]any{"c": "d"}})
	if res, err = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns", Name: "n"}, Body: body, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	wantMutated(t, res.Object, "data.c", "ZA==")

	pres, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "ns", Name: "n"}, Type: engine.MergePatchType, Patch: []byte(`{"stringData":{"a":"z"}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	wantMutated(t, pres.Object, "data.a", "eg==")
	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "ns", Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	wantMutated(t, got, "data.a", "eg==")
}

// TestMutatorOnApply: an apply's configuration is merged first, so the
// manager owns stringData as it applied it, while what is stored and
// answered is the mutated object, as kube-apiserver does for a Secret.
func TestMutatorOnApply(t *testing.T) {
	ctx := context.Background()
	s, rv := notesStore(t), notes(t)
	cfg := "apiVersion: notes.example.com/v1\nkind: Note\nmetadata:\n  name: n1\nstringData:\n  a: b\n"
	for i, created := range []bool{true, false} {
		res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "ns", Name: "n1"}, Type: engine.ApplyPatchType, Patch: []byte(cfg), Options: applyOpts("kubectl", false)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Created != created {
			t.Errorf("apply %d: created = %v", i, res.Created)
		}
		wantMutated(t, res.Object, "data.a", "Yg==")
		sameJSON(t, []byte(managedOf(t, res.Object)["kubectl/Apply"]), []byte(`{"f:stringData":{"f:a":{}}}`))
	}
}

// TestMutatorErrors: a plain error is kube's answer to a body it cannot
// decode (400 on a create or update, 422 on "patch" for a patch), a
// Status error goes as it is, and nothing is stored.
func TestMutatorErrors(t *testing.T) {
	ctx := context.Background()
	s, rv := notesStore(t), notes(t)
	_, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("n", `"stringData":{"bad":"x"}`), Options: engine.WriteOptions{}})
	if !apierrors.IsBadRequest(err) || err.Error() != `Note in version "v1" cannot be handled as a Note: illegal stuff` {
		t.Fatalf("create: %v", err)
	}
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("n", `"stringData":{"teapot":"x"}`), Options: engine.WriteOptions{}}); !apierrors.IsForbidden(err) {
		t.Fatalf("create with a Status error: %v", err)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "ns", Name: "n"}); !apierrors.IsNotFound(err) {
		t.Fatalf("refused note stored: %v", err)
	}
	created, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("n", `"data":{"a":"YQ=="}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "ns", Name: "n"}, Type: engine.MergePatchType, Patch: []byte(`{"stringData":{"bad":"x"}}`), Options: engine.PatchOptions{}})
	var se *apierrors.StatusError
	if !errorsAs(err, &se) || se.ErrStatus.Code != 422 || len(se.ErrStatus.Details.Causes) != 1 {
		t.Fatalf("patch: %v", err)
	}
	if c := se.ErrStatus.Details.Causes[0]; c.Field != "patch" || !strings.HasSuffix(c.Message, `}}": illegal stuff`) {
		t.Errorf("patch's cause = %+v", c)
	}
	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "ns", Name: "n"})
	if err != nil || rvOf(got) != rvOf(created.Object) {
		t.Fatalf("refused patch stored: %s %v", got, err)
	}
}

// TestNoMutatorUnchanged: a resource without a Mutator is written as sent.
func TestNoMutatorUnchanged(t *testing.T) {
	s := notesStore(t)
	rv := notes(t)
	rv.Resource.Plural = "others"
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("n", `"stringData":{"a":"b"}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "stringData.a").String() != "b" || gjson.GetBytes(res.Object, "data").Exists() {
		t.Fatalf("object changed: %s", res.Object)
	}
}

// wantMutated requires obj to hold path = want and no stringData.
func wantMutated(tb testing.TB, obj []byte, path, want string) {
	tb.Helper()
	if got := gjson.GetBytes(obj, path).String(); got != want {
		tb.Errorf("%s = %q, want %q in %s", path, got, want, obj)
	}
	if gjson.GetBytes(obj, "stringData").Exists() {
		tb.Errorf("stringData kept: %s", obj)
	}
}

var notesGR = schema.GroupResource{Group: "notes.example.com", Resource: "notes"}
