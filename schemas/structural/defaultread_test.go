package structural

import (
	"reflect"
	"testing"
)

// TestNeedsDefaults: NeedsDefaults, which reads the raw bytes, says an
// object needs a default exactly when DefaultRead changes it.
func TestNeedsDefaults(t *testing.T) {
	nested := `{"type":"object","properties":{
		"list":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer","default":80}}}},
		"map":{"type":"object","additionalProperties":{"type":"object","properties":{"on":{"type":"boolean","default":true}}}},
		"a":{"type":"string","default":"x"},"b":{"type":"string","nullable":true,"default":"y"},
		"l":{"type":"array","items":{"type":"string","default":"d"}}}}`
	tests := []struct {
		name, schema, obj string
		want              bool
	}{
		{"a defaulted field is absent", widgetSchema, `{"metadata":{"name":"w"},"spec":{"size":1}}`, true},
		{"every defaulted field is present", widgetSchema, `{"metadata":{"name":"w"},"spec":{"size":1,"color":"blue"}}`, false},
		{"its parent is absent", widgetSchema, `{"metadata":{"name":"w"}}`, false},
		{"no default in the schema", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`, false},
		{"all set", nested, `{"a":"1","b":"2","list":[{"port":1}],"map":{"k":{"on":false}},"l":["x"]}`, false},
		{"an item lacks one", nested, `{"a":"1","b":"2","list":[{"port":1},{}]}`, true},
		{"an additional property lacks one", nested, `{"a":"1","b":"2","map":{"k":{"on":false},"j":{}}}`, true},
		{"a top-level field is absent", nested, `{"b":"2"}`, true},
		{"a non-nullable null with a default", nested, `{"a":null,"b":"2"}`, true},
		{"a nullable null stays", nested, `{"a":"1","b":null}`, false},
		{"a null item with a default", nested, `{"a":"1","b":"2","l":["x",null]}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			if got := s.NeedsDefaults([]byte(tc.obj)); got != tc.want {
				t.Errorf("NeedsDefaults(%s) = %v, want %v", tc.obj, got, tc.want)
			}
			obj := object(t, tc.obj)
			s.DefaultRead(obj)
			if changed := !reflect.DeepEqual(obj, object(t, tc.obj)); changed != tc.want {
				t.Errorf("DefaultRead changed %s: %v (to %v), want %v", tc.obj, changed, obj, tc.want)
			}
		})
	}
}
