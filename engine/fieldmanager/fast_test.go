package fieldmanager

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// testSchema covers what the type converter maps: granular and atomic
// maps, atomic lists, sets, map lists, int-or-string, preserved and
// untyped fields, an embedded resource.
const testSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      size: {type: integer}
      color: {type: string}
      tags: {type: array, items: {type: string}}
      set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items: {type: object, properties: {name: {type: string}, port: {type: integer}}}
      selector: {type: object, x-kubernetes-map-type: atomic, additionalProperties: {type: string}}
      labels: {type: object, additionalProperties: {type: string}}
      stock: {x-kubernetes-int-or-string: true}
      extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
      any: {}
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  status:
    type: object
    properties:
      ready: {type: boolean}
`

func testManager(t testing.TB, statusSubresource bool) *Manager {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	var s openapi3.Schema
	if err := json.Unmarshal(j, &s); err != nil {
		t.Fatal(err)
	}
	m, err := New(&s, "shop.example.com/v1", statusSubresource)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func decode(t testing.TB, y string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCreateFieldsMatchesGeneralPath checks the fast create path against
// structured-merge-diff's Compare on the same object.
func TestCreateFieldsMatchesGeneralPath(t *testing.T) {
	tests := map[string]struct {
		obj      string
		fallback bool // the fast path declines
	}{
		"reference 07":               {obj: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default, uid: u, generation: 1, creationTimestamp: '2026-11-21T10:19:21Z', labels: {tier: gold}}\nspec: {color: red, size: 3, tags: [a]}"},
		"status kept":                {obj: "apiVersion: v\nkind: K\nmetadata: {name: a}\nspec: {size: 1}\nstatus: {ready: true}"},
		"only server metadata":       {obj: "apiVersion: v\nkind: K\nmetadata: {name: a, uid: x}"},
		"annotations and finalizers": {obj: "metadata: {name: a, annotations: {x: 'y'}, finalizers: [b, a]}\nspec: {}"},
		"set":                        {obj: "spec: {set: [z, a, m]}"},
		"atomic and maps":            {obj: "spec: {selector: {a: b}, labels: {a: b, c: d}, stock: 5%, extra: {x: {y: [1, 2]}, z: 1}, any: {q: 1}}"},
		"embedded":                   {obj: "spec: {template: {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {a: b}}, spec: {x: 1}}}"},
		"empty map":                  {obj: "spec: {labels: {}}"},
		"odd key":                    {obj: "spec: {labels: {\"a\\\"b\": c, \"<x>\": d}}"},
		"map list":                   {obj: "spec: {ports: [{name: a, port: 1}]}", fallback: true},
		"owner refs":                 {obj: "metadata: {ownerReferences: [{apiVersion: v1, kind: K, name: nn, uid: u}]}", fallback: true},
	}
	now := time.Date(2026, 11, 21, 10, 19, 21, 0, time.UTC)
	for name, tc := range tests {
		for _, status := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				m := testManager(t, status)
				obj := decode(t, tc.obj)
				fast, ok := m.createFields(obj, status)
				if ok == tc.fallback {
					t.Fatalf("fast path ok=%v, want %v", ok, !tc.fallback)
				}
				mf := newManaged()
				if err := m.update(nil, obj, mf, Write{Manager: "m", Now: now}); err != nil {
					t.Fatal(err)
				}
				entries, err := mf.encode()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					return
				}
				if len(entries) == 0 {
					if string(fast) != "{}" {
						t.Fatalf("fast %s, general none", fast)
					}
					return
				}
				if got, want := string(fast), string(entries[0].FieldsV1.Raw); got != want {
					t.Fatalf("fast\n %s\ngeneral\n %s", got, want)
				}
			})
		}
	}
}

func BenchmarkCreateFields(b *testing.B) {
	m := testManager(b, true)
	obj := decode(b, "apiVersion: v\nkind: K\nmetadata: {name: a, namespace: d, labels: {a: b, c: d}}\nspec: {size: 3, color: red, tags: [a, b], labels: {x: 'y'}}")
	now := time.Now()
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := m.Update(nil, obj, nil, Write{Manager: "m", Now: now}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		for b.Loop() {
			mf := newManaged()
			if err := m.update(nil, obj, mf, Write{Manager: "m", Now: now}); err != nil {
				b.Fatal(err)
			}
			if _, err := mf.encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
