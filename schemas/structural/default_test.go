package structural

import "testing"

func TestDefault(t *testing.T) {
	tests := map[string]struct {
		schema string
		obj    string
		want   string
	}{
		"kube reference widget: color defaults to red": {
			schema: widgetSchema,
			obj:    `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}}`,
			want:   `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":1}}`,
		},
		"present values are kept": {
			schema: widgetSchema,
			obj:    `{"spec":{"size":1,"color":"blue"}}`,
			want:   `{"spec":{"color":"blue","size":1}}`,
		},
		"absent parent is not created": {
			schema: widgetSchema,
			obj:    `{}`,
			want:   `{}`,
		},
		"defaulted object gets its own defaults": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","default":{},"properties":{
				"replicas":{"type":"integer","default":1},"strategy":{"type":"object","default":{"type":"Rolling"},
				"properties":{"type":{"type":"string"},"maxSurge":{"type":"integer","default":25}}}}}}}`,
			obj:  `{}`,
			want: `{"spec":{"replicas":1,"strategy":{"maxSurge":25,"type":"Rolling"}}}`,
		},
		"items and additionalProperties": {
			schema: `{"type":"object","properties":{
				"list":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer","default":80}}}},
				"map":{"type":"object","additionalProperties":{"type":"object","properties":{"on":{"type":"boolean","default":true}}}}}}`,
			obj:  `{"list":[{},{"port":8080}],"map":{"a":{},"b":{"on":false}}}`,
			want: `{"list":[{"port":80},{"port":8080}],"map":{"a":{"on":true},"b":{"on":false}}}`,
		},
		"non-nullable null with a default is defaulted": {
			schema: `{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"string","nullable":true,"default":"y"}}}`,
			obj:    `{"a":null,"b":null}`,
			want:   `{"a":"x","b":null}`,
		},
		"non-nullable null without a default is removed": {
			schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","nullable":true},
				"l":{"type":"array","items":{"type":"string"}}}}`,
			obj:  `{"a":null,"b":null,"l":[null]}`,
			want: `{"b":null,"l":[null]}`,
		},
		"null items with a default are defaulted": {
			schema: `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","default":"d"}}}}`,
			obj:    `{"l":["a",null]}`,
			want:   `{"l":["a","d"]}`,
		},
		"defaults are deep copies": {
			schema: `{"type":"object","properties":{
				"a":{"type":"object","default":{"k":["v"]},"properties":{"k":{"type":"array","items":{"type":"string"}}}},
				"b":{"type":"object","default":{"k":["v"]},"x-kubernetes-preserve-unknown-fields":true}}}`,
			obj:  `{}`,
			want: `{"a":{"k":["v"]},"b":{"k":["v"]}}`,
		},
		"integer defaults stay integers": {
			schema: `{"type":"object","properties":{"n":{"type":"integer","default":3},"f":{"type":"number","default":1.5}}}`,
			obj:    `{}`,
			want:   `{"f":1.5,"n":3}`,
		},
		"root meta fields are not defaulted": {
			schema: `{"type":"object","properties":{"kind":{"type":"string","default":"X"},"metadata":{"type":"object","default":{"name":"n"}}}}`,
			obj:    `{"metadata":null}`,
			want:   `{"metadata":null}`,
		},
		"defaults below preserve-unknown-fields": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
				"properties":{"mode":{"type":"string","default":"auto"}}}}}`,
			obj:  `{"spec":{"free":1}}`,
			want: `{"spec":{"free":1,"mode":"auto"}}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			obj := object(t, tc.obj)
			s.Default(obj)
			if got := toJSON(t, obj); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("defaults are not shared between objects", func(t *testing.T) {
		s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"object","default":{"k":"v"},"additionalProperties":{"type":"string"}}}}`)
		o1, o2 := object(t, `{}`), object(t, `{}`)
		s.Default(o1)
		o1["a"].(map[string]any)["k"] = "changed"
		s.Default(o2)
		if got := toJSON(t, o2); got != `{"a":{"k":"v"}}` {
			t.Errorf("got %s", got)
		}
	})
	t.Run("a required null is then reported missing", func(t *testing.T) {
		s := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","required":["gens"],
			"properties":{"gens":{"type":"array","items":{"type":"string"}}}}}}`)
		obj := object(t, `{"spec":{"gens":null}}`)
		s.Default(obj)
		got := joinLines(errorStrings(s.Validate(obj)))
		if want := "FieldValueRequired spec.gens: Required value"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
