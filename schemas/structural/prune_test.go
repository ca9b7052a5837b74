package structural

import (
	"strings"
	"testing"
)

func TestPrune(t *testing.T) {
	tests := map[string]struct {
		schema  string
		obj     string
		want    string // the object after pruning
		removed string // comma-separated pruned paths
	}{
		"kube reference: unknown field (16)": {
			schema:  widgetSchema,
			obj:     `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"u1"},"spec":{"size":1,"bogus":1}}`,
			want:    `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"u1"},"spec":{"size":1}}`,
			removed: "spec.bogus",
		},
		"root apiVersion, kind, metadata kept untouched even if undeclared": {
			schema: `{"type":"object","properties":{"spec":{"type":"object"}}}`,
			obj:    `{"apiVersion":"a/v1","kind":"K","metadata":{"name":"x","bogus":1},"spec":{},"extra":1}`,
			want:   `{"apiVersion":"a/v1","kind":"K","metadata":{"bogus":1,"name":"x"},"spec":{}}`, removed: "extra",
		},
		"nested objects and arrays": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"items":{"type":"array",
				"items":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}`,
			obj:     `{"spec":{"items":[{"name":"a","x":1},{"y":{"z":2}}],"other":[1]}}`,
			want:    `{"spec":{"items":[{"name":"a"},{}]}}`,
			removed: "spec.items[0].x,spec.items[1].y,spec.other",
		},
		"additionalProperties keeps keys and prunes below": {
			schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object",
				"properties":{"a":{"type":"string"}}}}}}`,
			obj:     `{"m":{"k1":{"a":"x","b":"y"},"k2":{}}}`,
			want:    `{"m":{"k1":{"a":"x"},"k2":{}}}`,
			removed: "m.k1.b",
		},
		"preserve-unknown-fields stops pruning but declared fields are pruned": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
				"properties":{"known":{"type":"object","properties":{"a":{"type":"string"}}}}}}}`,
			obj:     `{"spec":{"free":{"anything":[1,{"x":2}]},"known":{"a":"x","b":"y"}}}`,
			want:    `{"spec":{"free":{"anything":[1,{"x":2}]},"known":{"a":"x"}}}`,
			removed: "spec.known.b",
		},
		"preserve-unknown-fields at the root": {
			schema: `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
			obj:    `{"apiVersion":"a/v1","kind":"K","anything":{"goes":1}}`,
			want:   `{"anything":{"goes":1},"apiVersion":"a/v1","kind":"K"}`,
		},
		"scalar where an object is declared is kept": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
			obj:    `{"spec":"text"}`,
			want:   `{"spec":"text"}`,
		},
		"object where a string is declared is emptied": {
			schema:  `{"type":"object","properties":{"s":{"type":"string"}}}`,
			obj:     `{"s":{"a":1}}`,
			want:    `{"s":{}}`,
			removed: "s.a",
		},
		"embedded resource keeps type meta and reduces metadata to ObjectMeta": {
			schema: `{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,
				"properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}`,
			obj: `{"template":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","labels":{"a":"b"},"bogus":1,
				"creationTimestamp":null},"spec":{"replicas":1,"extra":true},"status":{}}}`,
			want:    `{"template":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"a":"b"},"name":"x"},"spec":{"replicas":1}}}`,
			removed: "template.metadata.bogus,template.spec.extra,template.status",
		},
		"embedded resource in a list under preserve-unknown-fields": {
			schema: `{"type":"object","properties":{"objs":{"type":"array","items":{"type":"object",
				"x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}`,
			obj:     `{"objs":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","nope":true},"data":{"k":"v"}}]}`,
			want:    `{"objs":[{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"c"}}]}`,
			removed: "objs[0].metadata.nope",
		},
		"allOf does not declare fields": {
			schema:  `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"a":{"maxLength":3}}}]}`,
			obj:     `{"a":"x","b":"y"}`,
			want:    `{"a":"x"}`,
			removed: "b",
		},
		"additionalProperties true keeps keys, not what is inside": {
			schema:  `{"type":"object","properties":{"m":{"type":"object","additionalProperties":true}}}`,
			obj:     `{"m":{"a":"x","b":{"c":1}}}`,
			want:    `{"m":{"a":"x","b":{}}}`,
			removed: "m.b.c",
		},
		"removed paths are sorted": {
			schema:  `{"type":"object","properties":{"spec":{"type":"object"}}}`,
			obj:     `{"z":1,"b":2,"spec":{"y":1,"a":2}}`,
			want:    `{"spec":{}}`,
			removed: "b,spec.a,spec.y,z",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			obj := object(t, tc.obj)
			removed := s.Prune(obj)
			if got := toJSON(t, obj); got != tc.want {
				t.Errorf("object:\ngot  %s\nwant %s", got, tc.want)
			}
			if got := strings.Join(removed, ","); got != tc.removed {
				t.Errorf("removed: got %q, want %q", got, tc.removed)
			}
		})
	}
}
