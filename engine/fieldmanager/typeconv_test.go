package fieldmanager

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/yaml"
)

// resolveField follows field names from the root of t's type.
func resolveField(t *testing.T, m *Manager, names ...string) schema.Atom {
	t.Helper()
	sch := m.typ.Schema
	atom, ok := sch.Resolve(m.typ.TypeRef)
	if !ok {
		t.Fatal("root does not resolve")
	}
	for _, n := range names {
		if atom.Map == nil {
			t.Fatalf("%s: not a map", n)
		}
		f, ok := atom.Map.FindField(n)
		tr := f.Type
		if !ok {
			tr = atom.Map.ElementType
		}
		if atom, ok = sch.Resolve(tr); !ok {
			t.Fatalf("%s does not resolve", n)
		}
	}
	return atom
}

func TestTypeFromOpenAPI(t *testing.T) {
	m := testManager(t, false)
	deduced := func(a schema.Atom) bool {
		return a.Scalar != nil && a.Map != nil && a.List != nil && a.Map.ElementRelationship == schema.Separable
	}
	tests := map[string]struct {
		path  []string
		check func(schema.Atom) bool
	}{
		"integer is numeric": {[]string{"spec", "size"}, func(a schema.Atom) bool { return a.Scalar != nil && *a.Scalar == schema.Numeric }},
		"string":             {[]string{"spec", "color"}, func(a schema.Atom) bool { return a.Scalar != nil && *a.Scalar == schema.String }},
		"list is atomic":     {[]string{"spec", "tags"}, func(a schema.Atom) bool { return a.List.ElementRelationship == schema.Atomic }},
		"set is associative": {[]string{"spec", "set"}, func(a schema.Atom) bool {
			return a.List.ElementRelationship == schema.Associative && len(a.List.Keys) == 0
		}},
		"map list has its keys": {[]string{"spec", "ports"}, func(a schema.Atom) bool {
			return a.List.ElementRelationship == schema.Associative && len(a.List.Keys) == 1 && a.List.Keys[0] == "name"
		}},
		"atomic map": {[]string{"spec", "selector"}, func(a schema.Atom) bool { return a.Map.ElementRelationship == schema.Atomic }},
		"granular map": {[]string{"spec", "labels"}, func(a schema.Atom) bool {
			return a.Map.ElementRelationship == schema.Separable && a.Map.ElementType.Inlined.Scalar != nil
		}},
		"int-or-string untyped":    {[]string{"spec", "stock"}, func(a schema.Atom) bool { return a.Scalar != nil && *a.Scalar == "untyped" }},
		"preserve-unknown deduces": {[]string{"spec", "extra", "anything"}, deduced},
		"no type is deduced":       {[]string{"spec", "any"}, deduced},
		"embedded has metadata":    {[]string{"spec", "template", "metadata", "labels"}, func(a schema.Atom) bool { return a.Map != nil }},
		"root metadata":            {[]string{"metadata", "finalizers"}, func(a schema.Atom) bool { return a.List.ElementRelationship == schema.Associative }},
		"owner references by uid":  {[]string{"metadata", "ownerReferences"}, func(a schema.Atom) bool { return len(a.List.Keys) == 1 && a.List.Keys[0] == "uid" }},
		"apiVersion":               {[]string{"apiVersion"}, func(a schema.Atom) bool { return a.Scalar != nil && *a.Scalar == schema.String }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if a := resolveField(t, m, tc.path...); !tc.check(a) {
				t.Errorf("%v: unexpected type %+v", tc.path, a)
			}
		})
	}
}

func TestTypeFromOpenAPIRejectsUndeclaredFields(t *testing.T) {
	m := testManager(t, false)
	if _, err := m.typ.FromUnstructured(map[string]any{"spec": map[string]any{"bogus": 1}}); err == nil {
		t.Error("a field the schema does not declare was accepted")
	}
	if _, err := m.typ.FromUnstructured(map[string]any{"spec": map[string]any{"extra": map[string]any{"free": []any{1}}}}); err != nil {
		t.Errorf("preserved field refused: %v", err)
	}
}

func TestTypeFromOpenAPIWithoutSchema(t *testing.T) {
	m, err := New(nil, "g/v", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.typ.FromUnstructured(map[string]any{"metadata": map[string]any{"name": "x"}, "anything": map[string]any{"a": 1}}); err != nil {
		t.Fatal(err)
	}
}

func TestTypeFromOpenAPIExtensionsAsRawJSON(t *testing.T) {
	j, _ := yaml.YAMLToJSON([]byte("type: object\nproperties:\n  l: {type: array, items: {type: string}}\n"))
	var s openapi3.Schema
	if err := json.Unmarshal(j, &s); err != nil {
		t.Fatal(err)
	}
	s.Properties["l"].Value.Extensions = map[string]any{"x-kubernetes-list-type": json.RawMessage(`"set"`)}
	m, err := New(&s, "g/v", false)
	if err != nil {
		t.Fatal(err)
	}
	if a := resolveField(t, m, "l"); a.List.ElementRelationship != schema.Associative {
		t.Errorf("raw extension ignored: %+v", a.List)
	}
}
