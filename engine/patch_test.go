package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// patchWidgets is the Widget of the recorded exchanges with its OpenAPI
// schema, from which the field manager builds its type.
func patchWidgets(tb testing.TB) *schemas.ResourceVersion {
	tb.Helper()
	rv := widgets(tb)
	var s openapi3.Schema
	if err := json.Unmarshal([]byte(widgetSchema), &s); err != nil {
		tb.Fatal(err)
	}
	rv.OpenAPI = &s
	return rv
}

const w1 = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"tier":"gold"}},"spec":{"size":3,"tags":["a"]}}`

// python is the manager of the recorded exchanges: the user agent's prefix.
var python = engine.WriteOptions{FieldManager: "Python-urllib"}

// pythonOpts are the options of the recorded exchanges' patches.
var pythonOpts = engine.PatchOptions{WriteOptions: python}

// sameAsReference compares obj with a recorded response body, without
// uid and resourceVersion.
func sameAsReference(tb testing.TB, obj []byte, n string) {
	tb.Helper()
	want := loadExchange(tb, n).Response.Body
	sameJSON(tb, withoutIDs(tb, obj), withoutIDs(tb, want))
}

func withoutIDs(tb testing.TB, obj []byte) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		tb.Fatal(err)
	}
	md := m["metadata"].(map[string]any)
	delete(md, "uid")
	delete(md, "resourceVersion")
	b, _ := json.Marshal(m)
	return b
}

func mustGet(tb testing.TB, s *engine.Store, rv *schemas.ResourceVersion, name string) []byte {
	tb.Helper()
	obj, err := s.Get(context.Background(), engine.Ref{Version: rv, Namespace: "default", Name: name})
	if err != nil {
		tb.Fatal(err)
	}
	return obj
}

// TestPatchReferenceSequence replays the recorded create, merge patch,
// JSON patch, failed test, status patch and status-only patch.
func TestPatchReferenceSequence(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := patchWidgets(t)
	res, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(w1), Options: python})
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, res.Object, "07")

	// 34 follows a PUT that moved the generation to 2; do the same.
	upd := gjson.GetBytes(res.Object, "@this").String()
	upd = setJSON(t, upd, "spec.size", 5)
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: []byte(upd), Options: python}); err != nil {
		t.Fatal(err)
	}

	p, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: loadExchange(t, "34").requestBody(), Options: pythonOpts})
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, p.Object, "34")

	p, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.JSONPatchType, Patch: loadExchange(t, "35").requestBody(), Options: pythonOpts})
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, p.Object, "35")

	before := mustGet(t, s, rv, "w1")
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.JSONPatchType, Patch: loadExchange(t, "36").requestBody(), Options: pythonOpts})
	sameJSON(t, statusOf(t, err), loadExchange(t, "36").Response.Body)
	if after := mustGet(t, s, rv, "w1"); string(after) != string(before) {
		t.Fatalf("failed test op changed the object:\n%s\n%s", before, after)
	}

	p, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: "status"}, Type: engine.MergePatchType, Patch: loadExchange(t, "39").requestBody(), Options: pythonOpts})
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, p.Object, "39")

	p40, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: loadExchange(t, "40").requestBody(), Options: pythonOpts})
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, p40.Object, "40")
	if rvOf(p40.Object) != rvOf(p.Object) {
		t.Errorf("a patch that changes nothing was written: resourceVersion %s -> %s", rvOf(p.Object), rvOf(p40.Object))
	}
}

func setJSON(tb testing.TB, doc, path string, v any) string {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		tb.Fatal(err)
	}
	cur := m
	parts := splitPath(path)
	for _, k := range parts[:len(parts)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = v
	b, _ := json.Marshal(m)
	return string(b)
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

func TestPatchErrorsLeaveObjectUnchanged(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		pt     engine.PatchType
		patch  string
		opts   engine.PatchOptions
		sub    string
		code   int32
		reason metav1.StatusReason
	}{
		"invalid value":         {pt: engine.MergePatchType, patch: `{"spec":{"size":0}}`, code: 422, reason: metav1.StatusReasonInvalid},
		"malformed merge patch": {pt: engine.MergePatchType, patch: `{"spec":`, code: 400, reason: metav1.StatusReasonBadRequest},
		"malformed json patch":  {pt: engine.JSONPatchType, patch: `{"op":"add"}`, code: 400, reason: metav1.StatusReasonBadRequest},
		"json patch bad path":   {pt: engine.JSONPatchType, patch: `[{"op":"replace","path":"/spec/nope/x","value":1}]`, code: 422, reason: metav1.StatusReasonInvalid},
		"stale resourceVersion": {pt: engine.MergePatchType, patch: `{"metadata":{"resourceVersion":"1"},"spec":{"size":4}}`, code: 409, reason: metav1.StatusReasonConflict},
		"renames the object":    {pt: engine.MergePatchType, patch: `{"metadata":{"name":"w9"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		"strict unknown field": {pt: engine.MergePatchType, patch: `{"spec":{"bogus":1}}`, code: 422, reason: metav1.StatusReasonInvalid,
			opts: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldValidation: engine.FieldValidationStrict}}},
		"changes the kind": {pt: engine.JSONPatchType, patch: `[{"op":"replace","path":"/kind","value":"Gadget"}]`, code: 422, reason: metav1.StatusReasonInvalid},
		"dry run":          {pt: engine.MergePatchType, patch: `{"spec":{"size":9}}`, opts: engine.PatchOptions{WriteOptions: engine.WriteOptions{DryRun: true}}},
		"dry run apply": {pt: engine.ApplyPatchType, patch: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 9}\n",
			opts: engine.PatchOptions{WriteOptions: engine.WriteOptions{DryRun: true, FieldManager: "a"}, Force: true}},
		"other subresource": {pt: engine.MergePatchType, patch: `{"spec":{"size":4}}`, sub: "scale", code: 404, reason: metav1.StatusReasonNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			rv := patchWidgets(t)
			mustCreate(t, s, rv, "default", w1)
			before := mustGet(t, s, rv, "w1")
			res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1", Subresource: tc.sub}, Type: tc.pt, Patch: []byte(tc.patch), Options: tc.opts})
			if tc.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if tc.opts.DryRun && gjson.GetBytes(res.Object, "spec.size").Int() != 9 {
					t.Errorf("dry run answered %s", res.Object)
				}
			} else {
				var se *apierrors.StatusError
				if !errorsAs(err, &se) || se.ErrStatus.Code != tc.code || se.ErrStatus.Reason != tc.reason {
					t.Fatalf("got %v, want %d %s", err, tc.code, tc.reason)
				}
			}
			if after := mustGet(t, s, rv, "w1"); string(after) != string(before) {
				t.Fatalf("object changed:\n%s\n%s", before, after)
			}
		})
	}
}

func TestPatchNotFound(t *testing.T) {
	s, _ := newStore(t)
	rv := patchWidgets(t)
	for pt, patch := range map[engine.PatchType]string{engine.MergePatchType: `{}`, engine.JSONPatchType: `[]`} {
		_, err := s.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "nope"}, Type: pt, Patch: []byte(patch), Options: engine.PatchOptions{}})
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: %v, want NotFound", pt, err)
		}
	}
	apply := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: nope}\nstatus: {ready: true}\n"
	_, err := s.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "nope", Subresource: "status"}, Type: engine.ApplyPatchType, Patch: []byte(apply), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "a"}}})

	if !apierrors.IsNotFound(err) {
		t.Errorf("apply to status: %v, want NotFound", err)
	}
}

// racingStorage writes to the object behind the store's back right before
// the first update it is asked for (the first races ones, when set), so
// that update loses the race.
type racingStorage struct {
	storage.Storage
	raced atomic.Bool
	races atomic.Int64
	race  func()
}

func (r *racingStorage) Update(ctx context.Context, key string, value []byte, rev int64) (int64, error) {
	if r.races.Add(-1) >= 0 || r.raced.CompareAndSwap(false, true) {
		r.race()
	}
	return r.Storage.Update(ctx, key, value, rev)
}

// TestPatchOutlastsRaces: a patch without a resourceVersion is tried
// again for as long as its writes lose races, as kube-apiserver's
// GuaranteedUpdate does, and never answers 409 for it.
func TestPatchOutlastsRaces(t *testing.T) {
	const races = 50
	_, s, rs, rv := racing(t)
	rs.races.Store(races)
	rs.raced.Store(true)
	res, err := s.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"size":4}}`)})
	if err != nil {
		t.Fatalf("a patch that lost %d races: %v", races, err)
	}
	if gjson.GetBytes(res.Object, "spec.size").Int() != 4 || gjson.GetBytes(res.Object, "metadata.labels.raced").String() != fmt.Sprint(races) {
		t.Fatalf("the retried patch lost a change: %s", res.Object)
	}
}

// racing is widget w1 in a store (base), and a store on the same etcd
// (racer) whose racingStorage labels w1 through base before an update,
// raced=1, 2, ...
func racing(t *testing.T) (base, racer *engine.Store, rs *racingStorage, rv *schemas.ResourceVersion) {
	st := etcdstorage.New(testClient)
	opts := engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Now: func() time.Time { return testNow }}
	base = engine.NewStore(st, opts)
	rv = patchWidgets(t)
	mustCreate(t, base, rv, "default", w1)
	rs = &racingStorage{Storage: st}
	n := 0
	rs.race = func() {
		n++
		label := fmt.Sprintf(`{"metadata":{"labels":{"raced":"%d"}}}`, n)
		if _, err := base.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: []byte(label)}); err != nil {
			t.Error(err)
		}
	}
	return base, engine.NewStore(rs, opts), rs, rv
}

func TestPatchRetriesWithoutResourceVersion(t *testing.T) {
	ctx := context.Background()
	base, s, rs, rv := racing(t)

	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: []byte(`{"spec":{"size":4}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.size").Int() != 4 || gjson.GetBytes(res.Object, "metadata.labels.raced").String() != "1" {
		t.Fatalf("the retried patch lost a change: %s", res.Object)
	}

	rs.raced.Store(false)
	withRV := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"size":5}}`, rvOf(res.Object))
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: []byte(withRV), Options: engine.PatchOptions{}})
	if !apierrors.IsConflict(err) {
		t.Fatalf("a patch naming a resourceVersion that lost the race: %v, want Conflict", err)
	}
	if got := gjson.GetBytes(mustGet(t, base, rv, "w1"), "spec.size").Int(); got != 4 {
		t.Errorf("size %d after the conflict, want 4", got)
	}
}
