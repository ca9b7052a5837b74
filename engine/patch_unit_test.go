package engine

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/mergepatch"

	"github.com/specd-io/specd/schemas"
)

// TestPatchApplication applies merge and JSON patches to an object without
// storage: the patched bytes, or the Status kube-apiserver answers.
func TestPatchApplication(t *testing.T) {
	rv := &schemas.ResourceVersion{Resource: nsResource, Version: "v1"}
	cur := `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["a","b"],"m":{"x":1}}}`
	tests := map[string]struct {
		pt     PatchType
		patch  string
		fv     FieldValidation
		want   string // the patched object
		reason metav1.StatusReason
		code   int32
		warn   int
	}{
		"merge sets":             {pt: MergePatchType, patch: `{"spec":{"size":6}}`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":6,"tags":["a","b"],"m":{"x":1}}}`},
		"merge null removes":     {pt: MergePatchType, patch: `{"spec":{"m":null}}`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["a","b"]}}`},
		"merge replaces arrays":  {pt: MergePatchType, patch: `{"spec":{"tags":["c"]}}`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["c"],"m":{"x":1}}}`},
		"merge not JSON":         {pt: MergePatchType, patch: `{`, reason: metav1.StatusReasonBadRequest, code: 400},
		"merge duplicate warns":  {pt: MergePatchType, patch: `{"spec":{"size":1,"size":2}}`, warn: 1, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":2,"tags":["a","b"],"m":{"x":1}}}`},
		"merge duplicate strict": {pt: MergePatchType, patch: `{"spec":{"size":1,"size":2}}`, fv: FieldValidationStrict, reason: metav1.StatusReasonInvalid, code: 422},
		"json add to list":       {pt: JSONPatchType, patch: `[{"op":"add","path":"/spec/tags/-","value":"c"}]`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["a","b","c"],"m":{"x":1}}}`},
		"json test passes":       {pt: JSONPatchType, patch: `[{"op":"test","path":"/spec/size","value":3},{"op":"remove","path":"/spec/m"}]`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["a","b"]}}`},
		"json move and copy":     {pt: JSONPatchType, patch: `[{"op":"copy","from":"/spec/size","path":"/spec/m/y"},{"op":"move","from":"/spec/m/x","path":"/spec/m/z"}]`, want: `{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"5"},"spec":{"size":3,"tags":["a","b"],"m":{"y":3,"z":1}}}`},
		"json test fails":        {pt: JSONPatchType, patch: `[{"op":"test","path":"/spec/size","value":1}]`, reason: metav1.StatusReasonInvalid, code: 422},
		"json missing path":      {pt: JSONPatchType, patch: `[{"op":"remove","path":"/spec/nope"}]`, reason: metav1.StatusReasonInvalid, code: 422},
		"json not a list":        {pt: JSONPatchType, patch: `{"op":"add"}`, reason: metav1.StatusReasonBadRequest, code: 400},
		"strategic":              {pt: "application/strategic-merge-patch+json", patch: `{}`, reason: metav1.StatusReasonUnsupportedMediaType, code: 415},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := newPatcher(rv, PatchRequest{Type: tc.pt, Patch: []byte(tc.patch), Options: PatchOptions{WriteOptions: WriteOptions{FieldValidation: tc.fv}}})
			var out []byte
			if err == nil {
				out, _, err = p.apply(nil, rv, []byte(cur))
			}
			if tc.code != 0 {
				se, ok := err.(*apierrors.StatusError)
				if !ok || se.ErrStatus.Code != tc.code || se.ErrStatus.Reason != tc.reason {
					t.Fatalf("got %v, want %d %s", err, tc.code, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tc.want), &want)
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			if len(p.warnings) != tc.warn {
				t.Errorf("warnings %v, want %d", p.warnings, tc.warn)
			}
		})
	}
}

func TestPatchTooManyOperations(t *testing.T) {
	ops := make([]map[string]any, maxJSONPatchOperations+1)
	for i := range ops {
		ops[i] = map[string]any{"op": "test", "path": "/kind", "value": "Widget"}
	}
	b, _ := json.Marshal(ops)
	_, err := newPatcher(&schemas.ResourceVersion{Resource: nsResource, Version: "v1"}, PatchRequest{Type: JSONPatchType, Patch: b})
	if !apierrors.IsRequestEntityTooLargeError(err) {
		t.Fatalf("got %v, want 413", err)
	}
}

// TestStrategicMergeError: the library's errors get kube-apiserver's codes,
// except that what kube answers 500 is the patch's 400 here.
func TestStrategicMergeError(t *testing.T) {
	tests := map[string]struct {
		err  error
		code int32
	}{
		"bad JSON document":   {mergepatch.ErrBadJSONDoc, http.StatusBadRequest},
		"bad retainKeys":      {mergepatch.ErrBadPatchFormatForRetainKeys, http.StatusBadRequest},
		"bad element order":   {mergepatch.ErrBadPatchFormatForSetElementOrderList, http.StatusBadRequest},
		"list of lists":       {mergepatch.ErrNoListOfLists, http.StatusUnprocessableEntity},
		"retainKeys mismatch": {mergepatch.ErrPatchContentNotMatchRetainKeys, http.StatusUnprocessableEntity},
		"anything else":       {errors.New("map: map[] does not contain declared merge key: uid"), http.StatusBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var st apierrors.APIStatus
			err := strategicMergeError(tc.err)
			if !errors.As(err, &st) || st.Status().Code != tc.code {
				t.Fatalf("%v, want a %d", err, tc.code)
			}
			// kube's 422 says no more than this.
			want := tc.err.Error()
			if tc.code == http.StatusUnprocessableEntity {
				want = "the server rejected our request due to an error in our request"
			}
			if msg := st.Status().Message; msg != want {
				t.Errorf("message %q, want %q", msg, want)
			}
		})
	}
}
