package structural

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestCompileErrors(t *testing.T) {
	tests := map[string]struct {
		schema string
		want   []string // "pointer: message" prefixes, in order
	}{
		"valid": {
			schema: widgetSchema,
		},
		"bad pattern": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"string","pattern":"([a-z"}}}}}`,
			want:   []string{"/properties/spec/properties/size/pattern: invalid regular expression: error parsing regexp: missing closing ]"},
		},
		"every problem is reported": {
			schema: `{"type":"object","properties":{"a":{"type":"strin"},"b":{"type":"string","pattern":"("},
				"c":{"type":"array"},"d/e":{"type":"string","pattern":"["}}}`,
			want: []string{
				"/properties/a/type: unknown type \"strin\"",
				"/properties/b/pattern: invalid regular expression",
				"/properties/c/items: must be specified for type array",
				"/properties/d~1e/pattern: invalid regular expression",
			},
		},
		"fields and items need a type": {
			schema: `{"type":"object","properties":{"a":{"description":"no type"},
				"l":{"type":"array","items":{"minLength":1}},
				"m":{"type":"object","additionalProperties":{"description":"no type"}},
				"ok1":{"x-kubernetes-int-or-string":true},"ok2":{"x-kubernetes-preserve-unknown-fields":true},
				"ok3":{"type":"string","allOf":[{"minLength":1}]}}}`,
			want: []string{
				"/properties/a/type: must not be empty for specified object fields",
				"/properties/l/items/type: must not be empty for specified array items",
				"/properties/m/additionalProperties/type: must not be empty for specified object fields",
			},
		},
		"list-type map needs keys": {
			schema: `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}}}}`,
			want:   []string{"/properties/l/x-kubernetes-list-map-keys: must not be empty if x-kubernetes-list-type is \"map\""},
		},
		"list-map-keys without list-type map": {
			schema: `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","x-kubernetes-list-map-keys":["k"],"items":{"type":"string"}}}}`,
			want:   []string{"/properties/l/x-kubernetes-list-map-keys: must be empty if x-kubernetes-list-type is not \"map\""},
		},
		"unknown list-type and map-type": {
			schema: `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}},
				"m":{"type":"object","x-kubernetes-map-type":"fine"}}}`,
			want: []string{
				"/properties/l/x-kubernetes-list-type: unsupported value \"bag\"",
				"/properties/m/x-kubernetes-map-type: unsupported value \"fine\"",
			},
		},
		"extension of the wrong type": {
			schema: `{"type":"object","x-kubernetes-preserve-unknown-fields":"yes"}`,
			want:   []string{"/x-kubernetes-preserve-unknown-fields: must be a boolean"},
		},
		"int-or-string with a type": {
			schema: `{"type":"object","properties":{"p":{"type":"string","x-kubernetes-int-or-string":true}}}`,
			want:   []string{"/properties/p/type: must be empty if x-kubernetes-int-or-string is true"},
		},
		"value validations are compiled too": {
			schema: `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"pattern":"("}],"not":{"pattern":")"}}}}`,
			want: []string{
				"/properties/a/anyOf/0/pattern: invalid regular expression",
				"/properties/a/not/pattern: invalid regular expression",
			},
		},
		"defaults must validate and must not be pruned": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{
				"size":{"type":"integer","minimum":1,"default":0},
				"opts":{"type":"object","properties":{"a":{"type":"string"}},"default":{"a":"x","b":"y"}},
				"tmpl":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{
					"metadata":{"type":"object","default":{"name":"anything"}}},"default":{"apiVersion":"v1","kind":"Pod"}}}}}}`,
			want: []string{
				"/properties/spec/properties/opts/default: must not have unknown fields: [b]",
				"/properties/spec/properties/size/default: default: Invalid value: 0: default in body should be greater than or equal to 1",
			},
		},
		"CEL rules are accepted": {
			schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.a == 1","message":"m"}],"properties":{"a":{"type":"integer"}}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, errs := compileJSON(t, tc.schema)
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors %v, want %d %v", len(errs), errs, len(tc.want), tc.want)
			}
			sortErrs(errs)
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("error %d: got %q, want prefix %q", i, e.Error(), tc.want[i])
				}
			}
			if (s == nil) != (len(tc.want) > 0) {
				t.Errorf("schema %v with %d errors", s, len(errs))
			}
		})
	}
}

func sortErrs(errs []CompileError) {
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && errs[j].Pointer < errs[j-1].Pointer; j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}

func TestCompileRecursiveRef(t *testing.T) {
	node := &openapi3.Schema{Type: &openapi3.Types{"object"}}
	node.Properties = openapi3.Schemas{"child": &openapi3.SchemaRef{Ref: "#/components/schemas/Node", Value: node}}
	root := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{
		"spec": &openapi3.SchemaRef{Value: node},
	}}
	done := make(chan []CompileError, 1)
	go func() { _, errs := Compile(root); done <- errs }()
	errs := <-done
	if len(errs) != 1 || errs[0].Pointer != "/properties/spec/properties/child" || !strings.Contains(errs[0].Message, "recursive") {
		t.Fatalf("got %v", errs)
	}
}

func TestCompileUnresolvedRef(t *testing.T) {
	root := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{
		"spec": &openapi3.SchemaRef{Ref: "#/components/schemas/Missing"},
	}}
	_, errs := Compile(root)
	if len(errs) != 1 || errs[0].Error() != `/properties/spec: unresolved $ref "#/components/schemas/Missing"` {
		t.Fatalf("got %v", errs)
	}
	if _, errs := Compile(nil); len(errs) != 1 {
		t.Fatalf("nil schema: got %v", errs)
	}
}

// Extensions set by hand as raw JSON work like decoded ones.
func TestCompileRawExtensions(t *testing.T) {
	root := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{
		"spec": &openapi3.SchemaRef{Value: &openapi3.Schema{
			Type:       &openapi3.Types{"object"},
			Extensions: map[string]any{"x-kubernetes-preserve-unknown-fields": json.RawMessage("true")},
		}},
	}}
	s, errs := Compile(root)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	obj := object(t, `{"spec":{"free":1}}`)
	if removed := s.Prune(obj); len(removed) > 0 {
		t.Errorf("pruned %v", removed)
	}
}
