package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
)

// smpEnv is a Store that takes strategic merge patches of the built-in
// kinds, as specd serve wires it, and the built-in resources.
type smpEnv struct {
	store *engine.Store
	opts  engine.Options
	reg   *schemas.Registry
}

func newSMPEnv(tb testing.TB, st storage.Storage) smpEnv {
	tb.Helper()
	reg, _, err := schemas.NewLoader(tb.TempDir(), builtin.Schemas()).Load()
	if err != nil {
		tb.Fatal(err)
	}
	opts := engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Now: func() time.Time { return testNow },
		StrategicPatchMeta: gotypes.PatchMeta}
	return smpEnv{store: engine.NewStore(st, opts), opts: opts, reg: reg}
}

func (e smpEnv) rv(tb testing.TB, group, plural string) *schemas.ResourceVersion {
	tb.Helper()
	rv := e.reg.Lookup(group, "v1", plural)
	if rv == nil {
		tb.Fatalf("no %s.%s/v1 in the built-in schemas", plural, group)
	}
	return rv
}

func (e smpEnv) smp(rv *schemas.ResourceVersion, name, patch string) (engine.PatchResult, error) {
	return e.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: name}, Type: engine.StrategicMergePatchType, Patch: []byte(patch), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "kubectl-patch"}}})

}

// wantJSON fails unless the value at path in obj is want (compact JSON).
func wantJSON(tb testing.TB, obj []byte, path, want string) {
	tb.Helper()
	v := gjson.GetBytes(obj, path)
	got := v.Raw
	if !v.Exists() {
		got = "<none>"
	}
	if got != want {
		tb.Errorf("%s = %s, want %s\n%s", path, got, want, obj)
	}
}

const rbacGroup = "rbac.authorization.k8s.io"

// TestStrategicMergePatch: maps merge (null removes a key), a list
// without a merge key is replaced whole, a list with one merges by it,
// and the directives work, as kube-apiserver applies them to its types.
func TestStrategicMergePatch(t *testing.T) {
	e := newSMPEnv(t, etcdstorage.New(testClient))
	cms, roles, bindings := e.rv(t, "", "configmaps"), e.rv(t, rbacGroup, "roles"), e.rv(t, rbacGroup, "rolebindings")
	mustCreate(t, e.store, cms, "default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["a/x","a/y"],
		"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o1","uid":"u1"},{"apiVersion":"v1","kind":"ConfigMap","name":"o2","uid":"u2"}]},
		"data":{"a":"1","b":"2"}}`)
	mustCreate(t, e.store, roles, "default", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},
		"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]},{"apiGroups":[""],"resources":["secrets"],"verbs":["list"]}]}`)
	mustCreate(t, e.store, bindings, "default", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},
		"subjects":[{"kind":"User","name":"alice"},{"kind":"User","name":"bob"}]}`)

	tests := []struct {
		name       string
		rv         *schemas.ResourceVersion
		obj, patch string
		path, want string
		alsoPath   string
		alsoWant   string
	}{
		{"data keys added and removed", cms, "c", `{"data":{"b":null,"c":"3"}}`, "data", `{"a":"1","c":"3"}`, "", ""},
		{"$patch: replace on a map", cms, "c", `{"data":{"$patch":"replace","z":"9"}}`, "data", `{"z":"9"}`, "", ""},
		{"$patch: delete on a map", cms, "c", `{"data":{"$patch":"delete"}}`, "data", "{}", "", ""}, // kube's encoding, and configdata, drop it
		{"$patch: delete by merge key", cms, "c", `{"metadata":{"ownerReferences":[{"uid":"u1","$patch":"delete"}]}}`,
			"metadata.ownerReferences.#.uid", `["u2"]`, "", ""},
		{"primitive list merges", cms, "c", `{"metadata":{"finalizers":["a/z"]}}`, "metadata.finalizers", `["a/z","a/x","a/y"]`, "", ""},
		{"$deleteFromPrimitiveList and $setElementOrder", cms, "c",
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a/x"],"$setElementOrder/finalizers":["a/z","a/y"]}}`,
			"metadata.finalizers", `["a/z","a/y"]`, "", ""},
		{"rules have no merge key: replaced", roles, "r", `{"rules":[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["watch"]}]}`,
			"rules", `[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["watch"]}]`, "", ""},
		{"subjects have no merge key: replaced", bindings, "b", `{"subjects":[{"kind":"User","name":"carol"}]}`,
			"subjects.#.name", `["carol"]`, "roleRef.name", `"r"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.smp(tc.rv, tc.obj, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			stored := mustGet(t, e.store, tc.rv, tc.obj)
			wantJSON(t, stored, tc.path, tc.want)
			if tc.alsoPath != "" {
				wantJSON(t, stored, tc.alsoPath, tc.alsoWant)
			}
			if rvOf(res.Object) != rvOf(stored) {
				t.Errorf("answered resourceVersion %s, stored %s", rvOf(res.Object), rvOf(stored))
			}
		})
	}
	// Every patch above is the manager's Update, as kube records one.
	mf := gjson.GetBytes(mustGet(t, e.store, cms, "c"), `metadata.managedFields.#(manager=="kubectl-patch")`)
	if mf.Get("operation").String() != "Update" || !mf.Get("fieldsV1").Exists() {
		t.Errorf("managed fields of the patches: %s", mf.Raw)
	}
}

// TestStrategicMergePatchErrors: kube's codes for a bad patch, and
// nothing is stored.
func TestStrategicMergePatchErrors(t *testing.T) {
	e := newSMPEnv(t, etcdstorage.New(testClient))
	cms := e.rv(t, "", "configmaps")
	mustCreate(t, e.store, cms, "default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["a/x"],
		"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1"}]},"data":{"a":"1"}}`)
	before := mustGet(t, e.store, cms, "c")
	tests := map[string]struct {
		patch string
		code  int32
		msg   string
	}{
		"not JSON":                  {`{"data":`, http.StatusBadRequest, ""},
		"not an object":             {`["data"]`, http.StatusBadRequest, ""},
		"list and strings mixed":    {`{"metadata":{"finalizers":[["a/y"]]}}`, http.StatusBadRequest, ""},
		"order of lists, a panic":   {`{"metadata":{"$setElementOrder/finalizers":[["a/x"]]}}`, http.StatusBadRequest, ""},
		"retainKeys contradicted":   {`{"data":{"$retainKeys":["a"],"b":"2"}}`, http.StatusBadRequest, "invalid patch format of retainKeys"},
		"unknown directive":         {`{"data":{"$patch":"explode"}}`, http.StatusBadRequest, ""},
		"merge key missing":         {`{"metadata":{"ownerReferences":[{"name":"o"}]}}`, http.StatusBadRequest, "map: map[name:o] does not contain declared merge key: uid"},
		"strict: key given twice":   {`{"data":{"b":"1","b":"2"}}`, http.StatusUnprocessableEntity, ""},
		"invalid patched ConfigMap": {`{"immutable":"yes"}`, http.StatusUnprocessableEntity, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := e.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: cms, Namespace: "default", Name: "c"}, Type: engine.StrategicMergePatchType, Patch: []byte(tc.patch), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "m", FieldValidation: engine.FieldValidationStrict}}})

			var se apierrors.APIStatus
			if !errorsAs(err, &se) || se.Status().Code != tc.code {
				t.Fatalf("%v, want a %d", err, tc.code)
			}
			if tc.msg != "" && se.Status().Message != tc.msg {
				t.Errorf("message %q, want %q", se.Status().Message, tc.msg)
			}
			if after := mustGet(t, e.store, cms, "c"); string(after) != string(before) {
				t.Fatalf("a failed patch changed the object:\n%s\n%s", before, after)
			}
		})
	}
	if _, err := e.smp(cms, "missing", `{"data":{"a":"1"}}`); !apierrors.IsNotFound(err) {
		t.Errorf("patch of a missing ConfigMap: %v, want NotFound", err)
	}
}

// TestStrategicMergePatchUnsupported: a custom resource, the scale
// subresource, and a Store without StrategicPatchMeta answer kube's 415.
func TestStrategicMergePatchUnsupported(t *testing.T) {
	e := newSMPEnv(t, etcdstorage.New(testClient))
	widgets := patchWidgets(t)
	mustCreate(t, e.store, widgets, "default", w1)
	cms := e.rv(t, "", "configmaps")
	mustCreate(t, e.store, cms, "default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)
	plain := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: e.opts.Keys})
	const want = "the body of the request was in an unknown format - accepted media types include: " +
		"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
	for name, tc := range map[string]struct {
		store *engine.Store
		rv    *schemas.ResourceVersion
		name  string
		sub   string
	}{
		"custom resource":       {e.store, widgets, "w1", ""},
		"its status":            {e.store, widgets, "w1", "status"},
		"its scale":             {e.store, widgets, "w1", "scale"},
		"no StrategicPatchMeta": {plain, cms, "c", ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.store.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: tc.rv, Namespace: "default", Name: tc.name, Subresource: tc.sub}, Type: engine.StrategicMergePatchType, Patch: []byte(`{"spec":{"size":8}}`), Options: engine.PatchOptions{}})

			if !apierrors.IsUnsupportedMediaType(err) || err.Error() != want {
				t.Fatalf("%v, want a 415 %q", err, want)
			}
		})
	}
}

// TestStrategicMergePatchRetries: a patch whose write lost a race is
// applied again, whole, to the new object (the merge consumes what it
// reads, so each attempt must read the patch afresh).
func TestStrategicMergePatchRetries(t *testing.T) {
	ctx := context.Background()
	st := etcdstorage.New(testClient)
	e := newSMPEnv(t, st)
	cms := e.rv(t, "", "configmaps")
	mustCreate(t, e.store, cms, "default", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`)
	rs := &racingStorage{Storage: st}
	rs.race = func() {
		if _, err := e.smp(cms, "c", `{"data":{"raced":"yes"}}`); err != nil {
			t.Error(err)
		}
	}
	racing := engine.NewStore(rs, e.opts)
	res, err := racing.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: cms, Namespace: "default", Name: "c"}, Type: engine.StrategicMergePatchType, Patch: []byte(`{"data":{"a":null,"b":"2"}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if !rs.raced.Load() {
		t.Fatal("the race did not run")
	}
	wantJSON(t, res.Object, "data", `{"b":"2","raced":"yes"}`)
}
