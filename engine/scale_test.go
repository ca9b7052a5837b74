package engine_test

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

const replicatedSchema = `{
  "type": "object",
  "properties": {
    "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 10}, "selector": {"type": "string"}}},
    "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
  }
}`

func replicated(tb testing.TB) *schemas.ResourceVersion {
	r := &schemas.Resource{Group: "apps.example.com", Kind: "Pool", ListKind: "PoolList", Plural: "pools",
		Singular: "pool", Scope: schemas.Namespaced, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, StatusSubresource: true, Schema: compile(tb, replicatedSchema),
		Scale: &schemas.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"}}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

func TestScale(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := replicated(t)
	obj := mustCreate(t, s, rv, "default", `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2,"selector":"app=p"}}`)

	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, withoutVolatile(t, got, "metadata.creationTimestamp"), []byte(`{"kind":"Scale","apiVersion":"autoscaling/v1",
		"metadata":{"name":"p","namespace":"default"},"spec":{"replicas":2},"status":{"replicas":0,"selector":"app=p"}}`))
	if rvOf(got) != rvOf(obj) {
		t.Fatalf("scale resourceVersion %s, want the object's %s", rvOf(got), rvOf(obj))
	}

	tests := map[string]struct {
		body  string
		check func(error) bool
	}{
		"stale resourceVersion": {`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p","resourceVersion":"1"},"spec":{"replicas":3}}`, apierrors.IsConflict},
		"negative":              {`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":-1}}`, apierrors.IsInvalid},
		"over the schema":       {`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":11}}`, apierrors.IsInvalid},
		"other name":            {`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"q"},"spec":{"replicas":1}}`, apierrors.IsBadRequest},
		"not a Scale":           {`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`, apierrors.IsBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Body: []byte(tc.body), Options: engine.WriteOptions{}})
			if !tc.check(err) {
				t.Fatalf("err %v", err)
			}
		})
	}

	res, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Body: []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p","resourceVersion":"` + rvOf(obj) + `"},"spec":{"replicas":5}}`), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(res.Object, "spec.replicas").Int() != 5 || rvOf(res.Object) == rvOf(obj) {
		t.Fatalf("scale answer %s", res.Object)
	}
	now, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
	if gjson.GetBytes(now, "spec.replicas").Int() != 5 || gjson.GetBytes(now, "metadata.generation").Int() != 2 {
		t.Fatalf("object after scaling: %s", now)
	}
	patches := map[string]struct {
		pt       engine.PatchType
		patch    string
		replicas int64
		check    func(error) bool
	}{
		"merge patch":                {engine.MergePatchType, `{"spec":{"replicas":7}}`, 7, nil},
		"json patch":                 {engine.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":4}]`, 4, nil},
		"patch over the schema":      {engine.MergePatchType, `{"spec":{"replicas":11}}`, 0, apierrors.IsInvalid},
		"patch with a stale version": {engine.MergePatchType, `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":3}}`, 0, apierrors.IsConflict},
		"apply":                      {engine.ApplyPatchType, `{"spec":{"replicas":3}}`, 0, apierrors.IsBadRequest},
	}
	for name, tc := range patches {
		t.Run(name, func(t *testing.T) {
			before, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
			res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "p", Subresource: "scale"}, Type: tc.pt, Patch: []byte(tc.patch), Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: "test"}}})

			after, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "p"})
			if tc.check != nil {
				if !tc.check(err) {
					t.Fatalf("err %v", err)
				}
				if string(after) != string(before) {
					t.Fatalf("a failed scale patch changed the object:\n%s\n%s", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gjson.GetBytes(res.Object, "kind").String() != "Scale" || gjson.GetBytes(res.Object, "spec.replicas").Int() != tc.replicas {
				t.Fatalf("scale patch answer %s", res.Object)
			}
			if gjson.GetBytes(after, "spec.replicas").Int() != tc.replicas {
				t.Fatalf("object after a scale patch: %s", after)
			}
		})
	}
	if _, err := s.Get(ctx, engine.Ref{Version: widgets(t), Namespace: "default", Name: "p", Subresource: "scale"}); !apierrors.IsNotFound(err) {
		t.Fatalf("scale of a resource without it: %v", err)
	}
}
