package openapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	kin "github.com/getkin/kin-openapi/openapi3"
)

func TestOpenAPIOperations(t *testing.T) {
	docs := New(loadFS(t, kitchenSinkFiles), servedVerbs)
	doc := loadDoc(t, docs, "sink.example.com", "v1")
	base := "/apis/sink.example.com/v1/namespaces/{namespace}/pools"
	type want struct {
		id, action, kind string
		params           []string
		body             []string // media types
		codes            []string
	}
	tests := map[string]want{
		base + " GET": {"listSinkExampleComV1NamespacedPool", "list", "Pool",
			[]string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"},
			nil, []string{"200", "default"}},
		base + " POST": {"createSinkExampleComV1NamespacedPool", "post", "Pool",
			[]string{"dryRun", "fieldManager", "fieldValidation"}, []string{"application/json", "application/yaml"}, []string{"201", "default"}},
		base + " DELETE": {"deleteSinkExampleComV1CollectionNamespacedPool", "deletecollection", "Pool",
			[]string{"dryRun", "fieldSelector", "gracePeriodSeconds", "labelSelector", "orphanDependents", "propagationPolicy"},
			[]string{"application/json", "application/yaml"}, []string{"200", "default"}},
		base + "/{name} GET": {"readSinkExampleComV1NamespacedPool", "get", "Pool", nil, nil, []string{"200", "default"}},
		base + "/{name} PUT": {"replaceSinkExampleComV1NamespacedPool", "put", "Pool",
			[]string{"dryRun", "fieldManager", "fieldValidation"}, []string{"application/json", "application/yaml"}, []string{"200", "default"}},
		base + "/{name} PATCH": {"patchSinkExampleComV1NamespacedPool", "patch", "Pool",
			[]string{"dryRun", "fieldManager", "fieldValidation", "force"},
			[]string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}, []string{"200", "201", "default"}},
		base + "/{name} DELETE": {"deleteSinkExampleComV1NamespacedPool", "delete", "Pool",
			[]string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}, []string{"application/json", "application/yaml"}, []string{"200", "default"}},
		base + "/{name}/status PATCH": {"patchSinkExampleComV1NamespacedPoolStatus", "patch", "Pool",
			[]string{"dryRun", "fieldManager", "fieldValidation", "force"},
			[]string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}, []string{"200", "default"}},
		base + "/{name}/scale GET": {"readSinkExampleComV1NamespacedPoolScale", "get", "Pool", nil, nil, []string{"200", "default"}},
		base + "/{name}/scale PUT": {"replaceSinkExampleComV1NamespacedPoolScale", "put", "Pool",
			[]string{"dryRun", "fieldManager", "fieldValidation"}, []string{"application/json", "application/yaml"}, []string{"200", "default"}},
		"/apis/sink.example.com/v1/pools GET": {"listSinkExampleComV1PoolForAllNamespaces", "list", "Pool",
			[]string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"},
			nil, []string{"200", "default"}},
	}
	for pm, w := range tests {
		t.Run(pm, func(t *testing.T) {
			path, method, _ := strings.Cut(pm, " ")
			op := doc.Paths.Value(path).GetOperation(method)
			if op == nil {
				t.Fatal("no operation")
			}
			if op.OperationID != w.id || op.Extensions[extAction] != w.action {
				t.Errorf("id %s action %v, want %s %s", op.OperationID, op.Extensions[extAction], w.id, w.action)
			}
			if gvk, _ := op.Extensions[extGVK].(map[string]any); gvk["kind"] != w.kind {
				t.Errorf("GVK %v, want kind %s", gvk, w.kind)
			}
			var params []string
			for _, p := range op.Parameters {
				params = append(params, p.Value.Name)
			}
			if !slices.Equal(params, w.params) {
				t.Errorf("parameters %v, want %v", params, w.params)
			}
			var media []string
			if op.RequestBody != nil {
				media = slices.Sorted(maps.Keys(op.RequestBody.Value.Content))
			}
			if !slices.Equal(media, w.body) {
				t.Errorf("body media types %v, want %v", media, w.body)
			}
			if codes := slices.Sorted(maps.Keys(op.Responses.Map())); !slices.Equal(codes, w.codes) {
				t.Errorf("responses %v, want %v", codes, w.codes)
			}
			if def := op.Responses.Default(); def == nil || def.Value.Content.Get("application/json").Schema.Ref != v3RefPrefix+nameStatus {
				t.Errorf("the error response is not a Status")
			}
		})
	}
	if ref := doc.Paths.Value(base + "/{name}/scale").Get.Responses.Value("200").Value.Content.Get("application/json").Schema.Ref; ref != v3RefPrefix+nameScale {
		t.Errorf("the scale subresource answers %s", ref)
	}
	if doc.Components.Schemas[nameWatch] == nil {
		t.Errorf("no WatchEvent schema")
	}
	del := doc.Paths.Value(base + "/{name}").Delete.Responses.Value("200").Value.Content.Get("application/json").Schema.Value
	if len(del.OneOf) != 2 {
		t.Errorf("a delete answers a Status or the object: %v", del)
	}
	deprecated := loadDoc(t, docs, "sink.example.com", "v1beta1")
	if op := deprecated.Paths.Value(base[:len("/apis/sink.example.com/")] + "v1beta1/namespaces/{namespace}/pools").Get; op == nil || !op.Deprecated {
		t.Errorf("the operations of a deprecated version are not deprecated")
	}
}

func loadDoc(t *testing.T, docs *Documents, group, version string) *kin.T {
	t.Helper()
	d, ok := docs.GroupVersion(group, version)
	if !ok {
		t.Fatalf("no document of %s/%s", group, version)
	}
	doc, err := kin.NewLoader().LoadFromData(d.JSON())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestOpenAPIPublishesDeclaredSchemas(t *testing.T) {
	gv, _ := New(loadFS(t, kitchenSinkFiles), servedVerbs).GroupVersion("sink.example.com", "v1")
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(gv.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	comps := doc.Components.Schemas
	tests := map[string]struct {
		schema string
		want   []string
	}{
		"the kind, its type and object meta": {"com.example.sink.v1.Pool", []string{
			`"description":"A pool of workers."`,
			`"spec":{"allOf":[{"$ref":"#/components/schemas/com.example.sink.v1.PoolSpec"}],"description":"What the pool should be."}`,
			`"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]`,
			`"apiVersion":{"description":"APIVersion defines`,
			`"x-kubernetes-group-version-kind":[{"group":"sink.example.com","version":"v1","kind":"Pool"}]`}},
		"the generated list": {"com.example.sink.v1.PoolList", []string{
			`"items":{"description":"The pools.","items":{"$ref":"#/components/schemas/com.example.sink.v1.Pool"},"type":"array"}`,
			`"x-kubernetes-group-version-kind":[{"group":"sink.example.com","version":"v1","kind":"PoolList"}]`}},
		"a referred schema, qualified": {"com.example.sink.v1.PoolSpec", []string{
			`"replicas":{"description":"How many workers.","minimum":0,"type":"integer"}`,
			`"owner":{"description":"Who pays.","nullable":true,"type":"string"}`,
			`"items":{"$ref":"#/components/schemas/com.example.sink.v1.PoolListSchema"}`,
			`"x-kubernetes-int-or-string":true`}},
		"a referred schema named like a list": {"com.example.sink.v1.PoolListSchema", []string{
			`"description":"Not the generated list of pools, a list of something else."`}},
		"an embedded resource gets its type and object meta": {"com.example.sink.v1.PoolSpec", []string{
			`"template":{"properties":{"apiVersion":`, `"required":["apiVersion","kind"]`}},
		"defaults are data": {"com.example.sink.v1.PoolSpec", []string{
			`"default":{"$ref":"not a ref","x-specd-kept":"data"}`, `"properties":{"$ref":{"type":"string"},"x-specd-kept":{"type":"string"}}`}},
		"meta types with apimachinery's descriptions": {nameObjMeta, []string{
			`"description":"ObjectMeta is metadata that all persisted resources must have`,
			`"ownerReferences":{"description":"List of objects depended by this object.`,
			`"creationTimestamp":{"description":`, `"format":"date-time"`}},
		"Status":     {nameStatus, []string{`"code":{"description":"Suggested HTTP return code`, `"kind":"Status"`}},
		"Scale":      {nameScale, []string{`"x-kubernetes-group-version-kind":[{"group":"autoscaling","version":"v1","kind":"Scale"}]`}},
		"WatchEvent": {nameWatch, []string{`"required":["type","object"]`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := string(comps[tc.schema])
			if got == "" {
				t.Fatalf("no schema %s", tc.schema)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %s:\n%s", tc.schema, w, got)
				}
			}
		})
	}
	if comps["PoolSpec"] != nil || comps["com.example.sink.v1.PoolList"] == nil {
		t.Errorf("schemas: %v", slices.Sorted(maps.Keys(comps)))
	}
}
