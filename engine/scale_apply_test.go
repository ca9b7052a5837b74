package engine_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

func scaleConfig(replicas string) string {
	return `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":` + replicas + `}}`
}

func scalePatch(t *testing.T, s *engine.Store, rv *schemas.ResourceVersion, pt engine.PatchType, body, manager string, force bool) (engine.PatchResult, error) {
	t.Helper()
	return s.Patch(context.Background(), engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Type: pt, Patch: []byte(body), Options: engine.PatchOptions{Force: force, WriteOptions: engine.WriteOptions{FieldManager: manager}}})

}

// managerOf returns "operation/subresource" of manager's entry in obj's
// managedFields and the fields it owns, "" when it has none.
func managerOf(t *testing.T, obj []byte, manager string) (string, string) {
	t.Helper()
	var entries []metav1.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(gjson.GetBytes(obj, "metadata.managedFields").Raw), &entries); err != nil {
		t.Fatalf("managedFields: %v\n%s", err, obj)
	}
	for _, e := range entries {
		if e.Manager == manager {
			if e.APIVersion != "apps.example.com/v1" {
				t.Fatalf("entry of %s in %s, want the object's version", manager, e.APIVersion)
			}
			return string(e.Operation) + "/" + e.Subresource, string(e.FieldsV1.Raw)
		}
	}
	return "", ""
}

// TestScaleApply follows kube-apiserver's server-side apply of a Scale to
// a custom resource's scale subresource: the managers of the object's spec
// replicas are the Scale's, conflicts are answered as for any apply, and
// the apply is recorded on the object with subresource "scale".
func TestScaleApply(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := replicated(t)
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(`{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2,"selector":"app=p"}}`), Options: engine.WriteOptions{FieldManager: "creator"}}); err != nil {
		t.Fatal(err)
	}
	get := func() []byte {
		obj, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}

	_, err := scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig("3"), "hpa", false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `Apply failed with 1 conflict: conflict with "creator" using autoscaling/v1`) ||
		!strings.Contains(err.Error(), ".spec.replicas") {
		t.Fatalf("apply over the creator's replicas: %v", err)
	}
	res, err := scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig("3"), "hpa", true)
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "kind").String() != "Scale" || gjson.GetBytes(res.Object, "spec.replicas").Int() != 3 ||
		gjson.GetBytes(res.Object, "metadata.managedFields").Exists() {
		t.Fatalf("forced apply answered %s", res.Object)
	}
	obj := get()
	if gjson.GetBytes(obj, "spec.replicas").Int() != 3 || gjson.GetBytes(obj, "metadata.generation").Int() != 2 {
		t.Fatalf("object after the apply: %s", obj)
	}
	if op, fields := managerOf(t, obj, "hpa"); op != "Apply/scale" || fields != `{"f:spec":{"f:replicas":{}}}` {
		t.Fatalf("hpa's entry %s %s", op, fields)
	}
	if op, fields := managerOf(t, obj, "creator"); op != "Update/" || strings.Contains(fields, "f:replicas") || !strings.Contains(fields, "f:selector") {
		t.Fatalf("creator's entry %s %s, want it without the replicas", op, fields)
	}

	// The applier changes its own field freely.
	if _, err := scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig("4"), "hpa", false); err != nil {
		t.Fatal(err)
	}
	// An update through the scale (kubectl scale) takes the field over.
	if _, err := scalePatch(t, s, rv, engine.MergePatchType, `{"spec":{"replicas":5}}`, "kubectl", false); err != nil {
		t.Fatal(err)
	}
	obj = get()
	if op, fields := managerOf(t, obj, "kubectl"); op != "Update/scale" || fields != `{"f:spec":{"f:replicas":{}}}` {
		t.Fatalf("kubectl's entry %s %s\n%s", op, fields, obj)
	}
	if op, _ := managerOf(t, obj, "hpa"); op != "" {
		t.Fatalf("hpa keeps an entry (%s) after losing its only field: %s", op, obj)
	}
	_, err = scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig("6"), "hpa", false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "kubectl" with subresource "scale" using autoscaling/v1`) {
		t.Fatalf("apply over kubectl's scale: %v", err)
	}
	// Applying the value that is there shares the field: no conflict.
	if _, err := scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig("5"), "hpa", false); err != nil {
		t.Fatalf("apply of the current value: %v", err)
	}
	// The main endpoint sees the scale's managers as the object's.
	_, err = s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p"}, Type: engine.ApplyPatchType, Patch: []byte(`{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":9}}`), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "owner"}}})

	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `"kubectl" with subresource "scale" using apps.example.com/v1`) ||
		!strings.Contains(err.Error(), `"hpa" with subresource "scale"`) {
		t.Fatalf("main apply over the scale's managers: %v", err)
	}
	before := get()
	dry, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Type: engine.ApplyPatchType, Patch: []byte(scaleConfig("7")), Options: engine.PatchOptions{Force: true, WriteOptions: engine.WriteOptions{FieldManager: "hpa", DryRun: true}}})

	if err != nil || gjson.GetBytes(dry.Object, "spec.replicas").Int() != 7 {
		t.Fatalf("dry run: %v %s", err, dry.Object)
	}
	if after := get(); string(after) != string(before) {
		t.Fatalf("a dry run changed the object:\n%s\n%s", before, after)
	}
}

func TestScaleApplyRefused(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := replicated(t)
	mustCreate(t, s, rv, "default", `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2}}`)
	mustCreate(t, s, rv, "default", `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"empty"},"spec":{}}`)
	tests := map[string]struct {
		name, config string
		fv           engine.FieldValidation
		check        func(error) bool
		message      string
	}{
		"not a Scale": {"p", `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":3}}`, "",
			apierrors.IsBadRequest, "invalid object type: apps.example.com/v1, Kind=Pool"},
		"other name":          {"p", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"q"},"spec":{"replicas":3}}`, "", apierrors.IsBadRequest, "does not match the name on the URL"},
		"negative":            {"p", scaleConfig("-1"), "", apierrors.IsInvalid, "spec.replicas"},
		"over the schema":     {"p", scaleConfig("11"), "", apierrors.IsInvalid, "spec.replicas"},
		"unknown field":       {"p", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":3,"surge":1}}`, engine.FieldValidationStrict, apierrors.IsBadRequest, `failed to create typed patch object (/p; autoscaling/v1, Kind=Scale): .spec.surge: field not declared in schema`},
		"stale version":       {"p", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p","resourceVersion":"1"},"spec":{"replicas":3}}`, "", apierrors.IsConflict, ""},
		"no object":           {"nope", scaleConfig("3"), "", apierrors.IsNotFound, ""},
		"replicas left empty": {"empty", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"empty"}}`, "", apierrors.IsBadRequest, `the spec replicas field ".spec.replicas" cannot be empty`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before, _ := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{})
			_, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: tc.name, Subresource: "scale"}, Type: engine.ApplyPatchType, Patch: []byte(tc.config), Options: engine.PatchOptions{Force: true, WriteOptions: engine.WriteOptions{FieldManager: "hpa", FieldValidation: tc.fv}}})

			if !tc.check(err) || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("err %v", err)
			}
			if after, _ := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{}); string(after) != string(before) {
				t.Fatalf("a refused apply changed objects:\n%s\n%s", before, after)
			}
		})
	}
	// An object without replicas: what its Scale holds belongs to
	// before-first-apply, as in kube-apiserver, so the first apply
	// conflicts unless forced.
	config := []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"empty"},"spec":{"replicas":1}}`)
	_, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "empty", Subresource: "scale"}, Type: engine.ApplyPatchType, Patch: config, Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "hpa"}}})

	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "before-first-apply" with subresource "scale"`) {
		t.Fatalf("first apply to an object without replicas: %v", err)
	}
	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "empty", Subresource: "scale"}, Type: engine.ApplyPatchType, Patch: config, Options: engine.PatchOptions{Force: true, WriteOptions: engine.WriteOptions{FieldManager: "hpa"}}})

	if err != nil || gjson.GetBytes(res.Object, "spec.replicas").Int() != 1 {
		t.Fatalf("forced apply to an object without replicas: %v %s", err, res.Object)
	}
	obj, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "empty"})
	if _, fields := managerOf(t, obj, "before-first-apply"); fields != "" {
		t.Fatalf("before-first-apply of the scale left on the object: %s", obj)
	}
}

// TestScaleUpdateManagedFields: a PUT of a Scale is recorded on the object
// as an update of the scale subresource, as kube-apiserver records it.
func TestScaleUpdateManagedFields(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := replicated(t)
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(`{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2,"selector":"app=p"}}`), Options: engine.WriteOptions{FieldManager: "creator"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Body: []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":4}}`), Options: engine.WriteOptions{FieldManager: "scaler"}}); err != nil {
		t.Fatal(err)
	}
	obj, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
	if op, fields := managerOf(t, obj, "scaler"); op != "Update/scale" || fields != `{"f:spec":{"f:replicas":{}}}` {
		t.Fatalf("scaler's entry %s %s\n%s", op, fields, obj)
	}
	if _, fields := managerOf(t, obj, "creator"); strings.Contains(fields, "f:replicas") {
		t.Fatalf("creator keeps the replicas: %s", fields)
	}
}

// TestScaleConcurrentWrites: writes through the scale that race with each
// other are retried on the new object, not answered with a conflict.
func TestScaleConcurrentWrites(t *testing.T) {
	s, _ := newStore(t)
	rv := replicated(t)
	mustCreate(t, s, rv, "default", `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2}}`)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var err error
			if i%2 == 0 {
				_, err = scalePatch(t, s, rv, engine.MergePatchType, `{"spec":{"replicas":`+strconv.Itoa(i)+`}}`, "kubectl", false)
			} else {
				_, err = scalePatch(t, s, rv, engine.ApplyPatchType, scaleConfig(strconv.Itoa(i)), "hpa-"+strconv.Itoa(i), true)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
