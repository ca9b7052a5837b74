package structural

import (
	"fmt"
	"testing"
)

// TestValueValidationRules checks kube's structural rules for allOf,
// anyOf, oneOf and not, on the cases of apiextensions-apiserver's own
// tests of pkg/apiserver/schema (validation_test.go) and on a CRD shape
// kube accepts that specd once refused.
func TestValueValidationRules(t *testing.T) {
	const obj = `{"type":"object","properties":{"foo":{"type":"string"},"l":{"type":"array","items":{"type":"string"}}},%s}`
	tests := map[string]struct {
		junctors string // the junctor keywords of obj
		want     []string
	}{
		"oneOf branches name properties without a type": {
			junctors: `"oneOf":[{"properties":{"foo":{"minLength":1}},"required":["foo"]},{"required":["l"]}]`,
		},
		"property in a value validation and in the structure": {
			junctors: `"allOf":[{"properties":{"foo":{"minLength":2}}}]`,
		},
		"property in a value validation only": {
			junctors: `"allOf":[{"properties":{"notfoo":{"minLength":2}}}]`,
			want:     []string{"/properties/notfoo: must be specified because it is defined in /allOf/0/properties/notfoo"},
		},
		"items in a value validation and in the structure": {
			junctors: `"anyOf":[{"properties":{"l":{"items":{"minLength":2}}}}]`,
		},
		"items in a value validation only": {
			junctors: `"allOf":[{"items":{"minLength":2}}]`,
			want:     []string{"/items: must be specified because it is defined in /allOf/0/items"},
		},
		"not names an undeclared property": {
			junctors: `"not":{"properties":{"bar":{"enum":["x"]}}}`,
			want:     []string{"/properties/bar: must be specified because it is defined in /not/properties/bar"},
		},
		"nested junctors are checked against the same structure": {
			junctors: `"allOf":[{"anyOf":[{"properties":{"zap":{"minLength":1}}}]}]`,
			want:     []string{"/properties/zap: must be specified because it is defined in /allOf/0/anyOf/0/properties/zap"},
		},
		"additionalProperties in a value validation": {
			junctors: `"allOf":[{"additionalProperties":{"minLength":2}}]`,
			want:     []string{"/allOf/0/additionalProperties: must be undefined to be structural"},
		},
		"generic fields that describe the structure": {
			junctors: `"anyOf":[{"type":"object"},{"default":{}},{"title":"t"},{"description":"d"},{"nullable":true}]`,
			want: []string{
				"/anyOf/0/type: must be empty to be structural",
				"/anyOf/1/default: must be undefined to be structural",
				"/anyOf/2/title: must be empty to be structural",
				"/anyOf/3/description: must be empty to be structural",
				"/anyOf/4/nullable: must be false to be structural",
			},
		},
		"example and externalDocs are allowed": {
			junctors: `"oneOf":[{"example":{"foo":"x"},"externalDocs":{"url":"https://example.com"}}]`,
		},
		"kubernetes extensions in a value validation": {
			junctors: `"oneOf":[{"x-kubernetes-preserve-unknown-fields":true},{"x-kubernetes-embedded-resource":true},
				{"x-kubernetes-int-or-string":true},{"x-kubernetes-list-map-keys":["k"]},{"x-kubernetes-list-type":"atomic"},
				{"x-kubernetes-map-type":"atomic"},{"x-kubernetes-validations":[{"rule":"true"}]}]`,
			want: []string{
				"/oneOf/0/x-kubernetes-preserve-unknown-fields: must be false to be structural",
				"/oneOf/1/x-kubernetes-embedded-resource: must be false to be structural",
				"/oneOf/2/x-kubernetes-int-or-string: must be false to be structural",
				"/oneOf/3/x-kubernetes-list-map-keys: must be empty to be structural",
				"/oneOf/4/x-kubernetes-list-type: must be undefined to be structural",
				"/oneOf/5/x-kubernetes-map-type: must be undefined to be structural",
				"/oneOf/6/x-kubernetes-validations: must be empty to be structural",
			},
		},
		"metadata in a nested context": {
			junctors: `"allOf":[{"properties":{"metadata":{"required":["name"]}}}]`,
			want: []string{
				"/allOf/0/properties/metadata: must not be specified in a nested context",
				"/properties/metadata: must be specified because it is defined in /allOf/0/properties/metadata",
			},
		},
		"a value validation inside a property of a value validation": {
			junctors: `"allOf":[{"properties":{"foo":{"anyOf":[{"type":"string"}]}}}]`,
			want:     []string{"/allOf/0/properties/foo/anyOf/0/type: must be empty to be structural"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkCompileErrors(t, fmt.Sprintf(obj, tc.junctors), tc.want)
		})
	}
}

// TestIntOrStringPatterns: the two forms of int-or-string kube allows
// with types in anyOf, and what is not one of them.
func TestIntOrStringPatterns(t *testing.T) {
	tests := map[string]struct {
		field string
		want  []string
	}{
		"anyOf": {
			field: `{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}`,
		},
		"first allOf's anyOf": {
			field: `{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}`,
		},
		"second allOf's anyOf": {
			field: `{"x-kubernetes-int-or-string":true,"allOf":[{"pattern":"^[0-9]+%?$"},{"anyOf":[{"type":"integer"},{"type":"string"}]}]}`,
			want: []string{
				"/properties/f/allOf/1/anyOf/0/type: must be empty to be structural",
				"/properties/f/allOf/1/anyOf/1/type: must be empty to be structural",
			},
		},
		"a branch with more than its type": {
			field: `{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string","minLength":1}]}`,
			want: []string{
				"/properties/f/anyOf/0/type: must be empty to be structural",
				"/properties/f/anyOf/1/type: must be empty to be structural",
			},
		},
		"types in the wrong order": {
			field: `{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"string"},{"type":"integer"}]}`,
			want: []string{
				"/properties/f/anyOf/0/type: must be empty to be structural",
				"/properties/f/anyOf/1/type: must be empty to be structural",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			checkCompileErrors(t, `{"type":"object","properties":{"f":`+tc.field+`}}`, tc.want)
		})
	}
}

func checkCompileErrors(t *testing.T, schema string, want []string) {
	t.Helper()
	_, errs := compileJSON(t, schema)
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Pointer + ": " + e.Message
	}
	if joinLines(got) != joinLines(want) {
		t.Errorf("got:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
}
