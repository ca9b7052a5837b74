package openapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestV2Schema(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"refs point to definitions": {
			`{"$ref": "#/components/schemas/com.example.shop.v1.Spec"}`,
			`{"$ref": "#/definitions/com.example.shop.v1.Spec"}`},
		"a described ref": {
			`{"description": "d", "allOf": [{"$ref": "#/components/schemas/X"}]}`,
			`{"description": "d", "$ref": "#/definitions/X"}`},
		"allOf of several is kept": {
			`{"allOf": [{"$ref": "#/components/schemas/X"}, {"required": ["a"]}]}`,
			`{"allOf": [{"$ref": "#/definitions/X"}, {"required": ["a"]}]}`},
		"what 2.0 cannot say goes": {
			`{"type": "string", "oneOf": [{"enum": ["a"]}], "anyOf": [{"enum": ["b"]}], "not": {"enum": ["c"]}, "writeOnly": true, "deprecated": true, "discriminator": {"propertyName": "k"}}`,
			`{"type": "string"}`},
		"a nullable field loses its type and children, and is not required": {
			`{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "object", "nullable": true, "properties": {"x": {"type": "string"}}}, "b": {"type": "string"}}}`,
			`{"type": "object", "required": ["b"], "properties": {"a": {}, "b": {"type": "string"}}}`},
		"nullable map values: nothing is required": {
			`{"type": "object", "required": ["a"], "additionalProperties": {"type": "string", "nullable": true}}`,
			`{"type": "object", "additionalProperties": {}}`},
		"preserve-unknown-fields objects lose type and children": {
			`{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "string"}}}`,
			`{"x-kubernetes-preserve-unknown-fields": true}`},
		"no array without items": {
			`{"type": "array", "items": {"type": "object", "nullable": true}}`,
			`{"type": "array", "items": {}}`},
		"an array whose items went": {
			`{"type": "array", "x-kubernetes-preserve-unknown-fields": true, "items": {"type": "string"}}`,
			`{"x-kubernetes-preserve-unknown-fields": true}`},
		"validations and extensions stay": {
			`{"type": "integer", "minimum": 1, "exclusiveMaximum": true, "maximum": 9, "enum": [1, 2], "default": 1, "x-kubernetes-int-or-string": true, "format": "int32"}`,
			`{"type": "integer", "minimum": 1, "exclusiveMaximum": true, "maximum": 9, "enum": [1, 2], "default": 1, "x-kubernetes-int-or-string": true, "format": "int32"}`},
		"a kind that preserves unknown fields is an object alone, as kube's v2": {
			`{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "K"}],
			  "properties": {"apiVersion": {"type": "string"}, "metadata": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}`,
			`{"type": "object", "x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "K"}]}`},
		"a kind with a schema keeps it": {
			`{"type": "object", "x-kubernetes-group-version-kind": [], "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}`,
			`{"type": "object", "x-kubernetes-group-version-kind": [], "properties": {"spec": {"x-kubernetes-preserve-unknown-fields": true}}}`},
		"defaults are data": {
			`{"type": "object", "default": {"nullable": true, "$ref": "x"}}`,
			`{"type": "object", "default": {"nullable": true, "$ref": "x"}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var in, want map[string]any
			if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(in)
			got := v2Definition(in)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("the v3 schema was changed: %s", after)
			}
		})
	}
}

func TestSwaggerOperations(t *testing.T) {
	var doc swDocument
	if err := json.Unmarshal(New(loadFS(t, kitchenSinkFiles), servedVerbs).Swagger().JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	base := "/apis/sink.example.com/v1/namespaces/{namespace}/pools"
	list := doc.Paths[base].Get
	if list == nil || !slices.Contains(list.Produces, mediaWatch) {
		t.Errorf("the list does not produce a watch stream: %+v", list)
	}
	create := doc.Paths[base].Post
	if create == nil || !slices.ContainsFunc(create.Parameters, func(p swParameter) bool {
		return p.In == "body" && p.Required && p.Schema["$ref"] == v2RefPrefix+"com.example.sink.v1.Pool"
	}) {
		t.Errorf("create has no body parameter: %+v", create)
	}
	patch := doc.Paths[base+"/{name}"].Patch
	if patch == nil || !slices.Equal(patch.Consumes, patchTypes) {
		t.Errorf("patch consumes %+v", patch)
	}
	del := doc.Paths[base+"/{name}"].Delete
	if del == nil || del.Responses["200"].Schema["$ref"] != v2RefPrefix+nameStatus {
		t.Errorf("delete answers %+v", del)
	}
	for name := range doc.Definitions {
		if strings.HasSuffix(name, "OrStatus") {
			t.Errorf("definition %s is a oneOf", name)
		}
	}
	if doc.Paths["/apis/sink.example.com/v1beta1/namespaces/{namespace}/pools"].Get.Deprecated != true {
		t.Error("the deprecated version's operations are not deprecated")
	}
}
