package schemas

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/specd-io/specd/internal/crdcorpus"
)

// kinSchema is what kin-openapi's decoder makes of raw, the reference
// schemaOf must match; nil when it cannot decode it.
func kinSchema(t *testing.T, raw any) *openapi3.Schema {
	t.Helper()
	doc := decodeSchemaDocument("schema.json", raw, &problems{})
	if doc == nil {
		return nil
	}
	return doc.Components.Schemas[crdSchemaName].Value
}

// sameSchema says how got differs from want, unexported fields and all.
func sameSchema(got, want *openapi3.Schema) string {
	return cmp.Diff(want, got, cmpopts.EquateComparable(), cmp.Exporter(func(reflect.Type) bool { return true }))
}

// TestSchemaOfAsKinOpenAPI: schemaOf builds every version schema of the
// CRD corpus, each exactly as kin-openapi's decoder does.
func TestSchemaOfAsKinOpenAPI(t *testing.T) {
	projects, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	built, all := 0, 0
	for _, p := range projects {
		for _, v := range crdcorpus.VersionSchemas(t, p) {
			var raw any
			if err := json.Unmarshal(v.Schema, &raw); err != nil {
				t.Fatalf("%s %s: %v", v.CRD, v.Version, err)
			}
			all++
			got, ok := schemaOf(raw)
			if !ok {
				t.Errorf("%s %s: schemaOf left it to kin-openapi", v.CRD, v.Version)
				continue
			}
			if diff := sameSchema(got, kinSchema(t, raw)); diff != "" {
				t.Errorf("%s %s: schemaOf differs from kin-openapi (-kin +schemaOf):\n%s", v.CRD, v.Version, diff)
			}
			built++
		}
	}
	if built != all || all < 150 {
		t.Errorf("%d of %d version schemas compared, want all of the corpus's (over 150)", built, all)
	}
}

// TestSchemaOfEdges: what schemaOf builds is kin-openapi's schema; it
// leaves to kin-openapi's decoder what that refuses, and what it holds
// in fields schemaOf does not set.
func TestSchemaOfEdges(t *testing.T) {
	built := []string{
		`{"type": ["string", "null"], "enum": [], "required": [], "properties": {}}`,
		`{"additionalProperties": {}, "x-kubernetes-int-or-string": true, "id": "x"}`,
		`{"additionalProperties": false, "exclusiveMinimum": true, "exclusiveMaximum": 3.5}`,
		`{"type": "object", "additionalProperties": {"type": "string", "maxLength": 63}}`,
		`{"minLength": 0, "maxItems": 18446744073709549568, "maxLength": 9007199254740993, "default": {"a": [1, "b"]}, "example": 2}`,
		`{"allOf": [{"required": ["a"]}], "oneOf": [], "not": {"type": "integer"}, "$schema": "x"}`,
	}
	for _, in := range built {
		var raw any
		if err := json.Unmarshal([]byte(in), &raw); err != nil {
			t.Fatal(err)
		}
		got, ok := schemaOf(raw)
		if !ok {
			t.Errorf("%s: left to kin-openapi", in)
			continue
		}
		if diff := sameSchema(got, kinSchema(t, raw)); diff != "" {
			t.Errorf("%s: differs from kin-openapi (-kin +schemaOf):\n%s", in, diff)
		}
	}
	left := []string{
		`{"type": 7}`, `{"minLength": -1}`, `{"maxItems": 18446744073709551615}`, `{"minItems": 1e20}`, `{"minLength": 1.5}`, `{"maxLength": 1e30}`, `{"Description": "x"}`,
		`{"$ref": "#/definitions/x"}`, `{"items": [{"type": "string"}]}`, `{"properties": {"a": true}}`,
		`{"nullable": null}`, `{"discriminator": {"propertyName": "kind"}}`, `{"required": ["a", 1]}`, `true`,
	}
	for _, in := range left {
		var raw any
		if err := json.Unmarshal([]byte(in), &raw); err != nil {
			t.Fatal(err)
		}
		if _, ok := schemaOf(raw); ok {
			t.Errorf("%s: built, want it left to kin-openapi", in)
		}
	}
}

// BenchmarkCRDSchema reads the version schemas of cluster-api's CRDs (the
// corpus's project with the most) as a load does, through kin-openapi's
// decoder and through schemaOf, each then checked as an OpenAPI document.
func BenchmarkCRDSchema(b *testing.B) {
	var raws []any
	for _, v := range crdcorpus.VersionSchemas(b, filepath.Join(crdcorpus.Dir(b), "cluster-api", "crds")) {
		var raw any
		if err := json.Unmarshal(v.Schema, &raw); err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	b.Run("kin-openapi", func(b *testing.B) {
		for b.Loop() {
			for _, raw := range raws {
				if doc := decodeSchemaDocument("schema.json", raw, &problems{}); !checkDocument("schema.json", doc, &problems{}) {
					b.Fatal("not a schema")
				}
			}
		}
	})
	b.Run("schemaOf", func(b *testing.B) {
		for b.Loop() {
			for _, raw := range raws {
				if loadSchema(raw, &problems{}) == nil {
					b.Fatal("not a schema")
				}
			}
		}
	})
}
