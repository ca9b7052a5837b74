package loadtest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestObjectSize(t *testing.T) {
	tests := map[string]struct {
		index    int
		min, max int
	}{
		"first object":           {0, 1600, 1800},
		"10,000th object":        {9999, 1600, 1800},
		"six-digit name":         {123456, 1600, 1800},
		"last five-digit object": {99999, 1600, 1800},
	}
	gen := newGenerator(DefaultConfig())
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if n := len(gen.Object(tc.index)); n < tc.min || n > tc.max {
				t.Errorf("object %d is %d bytes, want %d..%d", tc.index, n, tc.min, tc.max)
			}
		})
	}
}

func TestObjectShape(t *testing.T) {
	tests := map[string]struct {
		mutate     func(*Config)
		apiVersion string
		namespace  string
		fields     int
		fieldSize  int
	}{
		"defaults":       {func(*Config) {}, "bench.specd.io/v1", "bench", 20, 70},
		"core group":     {func(c *Config) { c.Group = "" }, "v1", "bench", 20, 70},
		"cluster scoped": {func(c *Config) { c.Namespace = "" }, "bench.specd.io/v1", "", 20, 70},
		"small":          {func(c *Config) { c.Fields, c.FieldSize = 3, 5 }, "bench.specd.io/v1", "bench", 3, 5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			var obj object
			raw := newGenerator(cfg).Object(42)
			if err := json.Unmarshal(raw, &obj); err != nil {
				t.Fatalf("object is not JSON: %v", err)
			}
			if obj.APIVersion != tc.apiVersion || obj.Kind != "Payload" || obj.Metadata.Name != "obj-00042" || obj.Metadata.Namespace != tc.namespace {
				t.Errorf("got %s %s %s/%s", obj.APIVersion, obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name)
			}
			if len(obj.Spec) != tc.fields {
				t.Fatalf("spec has %d fields, want %d", len(obj.Spec), tc.fields)
			}
			for f := range tc.fields {
				if v := obj.Spec[fieldName(f)]; len(v) != tc.fieldSize {
					t.Errorf("%s = %q, want %d characters", fieldName(f), v, tc.fieldSize)
				}
			}
		})
	}
}

func TestObjectsAreDeterministicAndDistinct(t *testing.T) {
	gen := newGenerator(DefaultConfig())
	if string(gen.Object(7)) != string(gen.Object(7)) {
		t.Error("the same index gave two different objects")
	}
	if gen.value(1, 0, 0) == gen.value(2, 0, 0) || gen.value(1, 0, 0) == gen.value(1, 1, 0) || gen.value(1, 0, 0) == gen.value(1, 0, 1) {
		t.Error("values repeat across objects, fields or generations")
	}
}

// TestBenchSchemaMatchesDefaults checks that examples/bench/bench.yaml
// declares what the tool's defaults ask for, and that a generated object's
// spec is valid under it.
func TestBenchSchemaMatchesDefaults(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join("..", "examples", "bench", "bench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("bench.yaml is not valid OpenAPI: %v", err)
	}
	cfg := DefaultConfig()
	var ext struct{ Group string }
	mustExt(t, doc.Extensions["x-specd"], &ext)
	if ext.Group != cfg.Group || doc.Info.Version != cfg.Version {
		t.Errorf("bench.yaml serves %s/%s, the defaults ask for %s/%s", ext.Group, doc.Info.Version, cfg.Group, cfg.Version)
	}
	payload := doc.Components.Schemas[cfg.Kind]
	if payload == nil {
		t.Fatalf("bench.yaml has no schema %s", cfg.Kind)
	}
	var res struct{ Plural, Singular, Scope string }
	mustExt(t, payload.Value.Extensions["x-specd-resource"], &res)
	if res.Plural != cfg.Resource || res.Scope != "Namespaced" {
		t.Errorf("x-specd-resource = %+v, want plural %s, Namespaced", res, cfg.Resource)
	}
	spec := payload.Value.Properties["spec"].Value
	if len(spec.Properties) != cfg.Fields {
		t.Errorf("spec has %d properties, the defaults generate %d", len(spec.Properties), cfg.Fields)
	}
	var obj map[string]any
	if err := json.Unmarshal(newGenerator(cfg).Object(0), &obj); err != nil {
		t.Fatal(err)
	}
	if err := spec.VisitJSON(obj["spec"], openapi3.MultiErrors()); err != nil {
		t.Errorf("a generated spec is invalid: %v", err)
	}
}

func mustExt(t *testing.T, v any, into any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(raw, into)
	}
	if err != nil {
		t.Fatalf("extension %v: %v", v, err)
	}
}
