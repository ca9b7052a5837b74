package converters

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestRuleKinds converts a spoke spec to the hub and back with each rule
// kind: the hub object is the one wanted, the way back gives the spoke
// object again, and neither carries bookkeeping.
func TestRuleKinds(t *testing.T) {
	tests := map[string]ruleCase{
		"rename": {
			spoke: `{height: {type: integer}}`, hub: `{heightInInches: {type: integer}}`,
			rules:     `[{rename: {from: spec.height, to: spec.heightInInches}}]`,
			spokeSpec: `{"height":3}`, hubSpec: `{"heightInInches":3}`,
		},
		"rename deep, parents made and emptied": {
			spoke:     `{a: {type: object, properties: {b: {type: object, properties: {c: {type: string}}}}}}`,
			hub:       `{x: {type: string}}`,
			rules:     `[{rename: {from: spec.a.b.c, to: spec.x}}]`,
			spokeSpec: `{"a":{"b":{"c":"deep"}}}`, hubSpec: `{"x":"deep"}`,
		},
		"rename keeps siblings": {
			spoke:     `{a: {type: object, properties: {b: {type: string}, k: {type: string}}}}`,
			hub:       `{a: {type: object, properties: {k: {type: string}}}, b: {type: string}}`,
			rules:     `[{rename: {from: spec.a.b, to: spec.b}}]`,
			spokeSpec: `{"a":{"b":"x","k":"y"}}`, hubSpec: `{"a":{"k":"y"},"b":"x"}`,
		},
		"rename of an object": {
			spoke:     `{size: {type: object, properties: {w: {type: integer}}}}`,
			hub:       `{dimensions: {type: object, properties: {w: {type: integer}}}}`,
			rules:     `[{rename: {from: spec.size, to: spec.dimensions}}]`,
			spokeSpec: `{"size":{"w":1}}`, hubSpec: `{"dimensions":{"w":1}}`,
		},
		"enum in place": {
			spoke: `{mode: {type: string}}`, hub: `{mode: {type: string}}`,
			rules:     `[{enum: {from: spec.mode, values: {fast: Fast, safe: Safe}}}]`,
			spokeSpec: `{"mode":"safe"}`, hubSpec: `{"mode":"Safe"}`,
		},
		"enum moved": {
			spoke: `{mode: {type: string}}`, hub: `{policy: {type: string}}`,
			rules:     `[{enum: {from: spec.mode, to: spec.policy, values: {fast: Fast}}}]`,
			spokeSpec: `{"mode":"fast"}`, hubSpec: `{"policy":"Fast"}`,
		},
		"enum value outside the map passes": {
			spoke: `{mode: {type: string}}`, hub: `{mode: {type: string}}`,
			rules:     `[{enum: {from: spec.mode, values: {fast: Fast}}}]`,
			spokeSpec: `{"mode":"slow"}`, hubSpec: `{"mode":"slow"}`,
		},
		"toList": {
			spoke: `{param: {type: string}}`, hub: `{params: {type: array, items: {type: string}}}`,
			rules:     `[{toList: {from: spec.param, to: spec.params}}]`,
			spokeSpec: `{"param":"a"}`, hubSpec: `{"params":["a"]}`,
		},
		"toList absent": {
			spoke: `{param: {type: string}, count: {type: integer}}`, hub: `{params: {type: array, items: {type: string}}, count: {type: integer}}`,
			rules:     `[{toList: {from: spec.param, to: spec.params}}]`,
			spokeSpec: `{"count":1}`, hubSpec: `{"count":1}`,
		},
		"fromList": {
			spoke: `{params: {type: array, items: {type: string}}}`, hub: `{param: {type: string}}`,
			rules:     `[{fromList: {from: spec.params, to: spec.param}}]`,
			spokeSpec: `{"params":["a"]}`, hubSpec: `{"param":"a"}`,
		},
		"nest": {
			spoke:     `{height: {type: integer}, width: {type: integer}, color: {type: string}}`,
			hub:       `{size: {type: object, properties: {height: {type: integer}, width: {type: integer}}}, color: {type: string}}`,
			rules:     `[{nest: {from: spec, fields: [height, width], to: spec.size}}]`,
			spokeSpec: `{"height":1,"width":2,"color":"red"}`, hubSpec: `{"size":{"height":1,"width":2},"color":"red"}`,
		},
		"nest, fields from the schema": {
			spoke:     `{height: {type: integer}, width: {type: integer}}`,
			hub:       `{size: {type: object, properties: {height: {type: integer}, width: {type: integer}}}}`,
			rules:     `[{nest: {from: spec, to: spec.size}}]`,
			spokeSpec: `{"height":1}`, hubSpec: `{"size":{"height":1}}`,
		},
		"flatten": {
			spoke:     `{size: {type: object, properties: {height: {type: integer}, width: {type: integer}}}}`,
			hub:       `{height: {type: integer}, width: {type: integer}}`,
			rules:     `[{flatten: {from: spec.size, to: spec}}]`,
			spokeSpec: `{"size":{"height":1,"width":2}}`, hubSpec: `{"height":1,"width":2}`,
		},
		"split": {
			spoke: `{command: {type: string}}`, hub: `{args: {type: array, items: {type: string}}}`,
			rules:     `[{split: {from: spec.command, to: spec.args, separator: " "}}]`,
			spokeSpec: `{"command":"ls -l /"}`, hubSpec: `{"args":["ls","-l","/"]}`,
		},
		"split empty string": {
			spoke: `{command: {type: string}}`, hub: `{args: {type: array, items: {type: string}}}`,
			rules:     `[{split: {from: spec.command, to: spec.args, separator: ","}}]`,
			spokeSpec: `{"command":""}`, hubSpec: `{"args":[""]}`,
		},
		"join": {
			spoke: `{tags: {type: array, items: {type: string}}}`, hub: `{tags: {type: string}}`,
			rules:     `[{join: {from: spec.tags, to: spec.tags, separator: ","}}]`,
			spokeSpec: `{"tags":["a","b"]}`, hubSpec: `{"tags":"a,b"}`,
		},
		"constant of a hub-only field": {
			spoke: `{count: {type: integer}}`, hub: `{count: {type: integer}, unit: {type: string}}`,
			rules:     `[{constant: {to: spec.unit, value: inches}}]`,
			spokeSpec: `{"count":1}`, hubSpec: `{"count":1,"unit":"inches"}`,
		},
		"constant of a spoke-only field": {
			spoke: `{count: {type: integer}, legacy: {type: boolean}}`, hub: `{count: {type: integer}}`,
			rules:     `[{constant: {from: spec.legacy, value: false}}]`,
			spokeSpec: `{"count":1,"legacy":false}`, hubSpec: `{"count":1}`,
		},
		"no rules": {
			spoke: `{count: {type: integer}}`, hub: `{count: {type: integer}}`,
			rules:     `[]`,
			spokeSpec: `{"count":1}`, hubSpec: `{"count":1}`,
		},
		"chained: the earlier rule frees what the later writes": {
			spoke: `{a: {type: string}, b: {type: string}}`, hub: `{b: {type: string}, c: {type: string}}`,
			rules:     `[{rename: {from: spec.b, to: spec.c}}, {rename: {from: spec.a, to: spec.b}}]`,
			spokeSpec: `{"a":"1","b":"2"}`, hubSpec: `{"b":"1","c":"2"}`,
		},
	}
	runRuleCases(t, tests)
}

// TestLossless: what one version cannot hold is kept in the bookkeeping
// annotation of the other and comes back exactly; the annotation is gone
// once everything is back.
func TestLossless(t *testing.T) {
	_, r := frobber(t)
	tests := map[string]struct {
		obj       string // v1 or v2
		keptAside string // a substring of the annotation in the other version
	}{
		"hub-only field":                   {obj("v2", `,"spec":{"color":"red","unit":"inches"}`), `"color"`},
		"extra list elements":              {obj("v2", `,"spec":{"params":["a","b","c"],"unit":"inches"}`), `"rest"`},
		"empty list":                       {obj("v2", `,"spec":{"params":[],"unit":"inches"}`), `"rest"`},
		"constant with another value":      {obj("v2", `,"spec":{"unit":"cm"}`), `"cm"`},
		"constant absent":                  {obj("v2", `,"spec":{}`), `"absent"`},
		"spoke-only constant, other value": {obj("v1", `,"spec":{"legacy":true}`), `"legacy"`},
		"enum value that collides":         {obj("v1", `,"spec":{"mode":"Fast","legacy":false}`), `"raw"`},
		"join of elements with the separator": {
			obj("v2", `,"spec":{"args":["a b","c"],"unit":"inches"}`), `"raw"`},
		"nested hub-only field in a list": {
			obj("v2", `,"spec":{"unit":"inches"},"status":{"conditions":[{"type":"A","x":{"y":1}}]}`), ""},
		"hub-only status field": {
			obj("v2", `,"spec":{"unit":"inches"},"status":{"phase":"P","conditions":[{"type":"A"}]}`), `"conditions"`},
		"unknown field kept both ways": {
			obj("v1", `,"spec":{"legacy":false,"bogus":{"a":[1,2]}}`), `"bogus"`},
		"client annotations untouched": {
			obj("v2", `,"spec":{"color":"red","unit":"inches"}`)[:0] +
				`{"apiVersion":"frobs.example.com/v2","kind":"Frobber","metadata":{"name":"f","annotations":{"mine":"x"}},"spec":{"color":"red","unit":"inches"}}`, `"color"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			toHub := strings.Contains(tc.obj, "/v1")
			other := testGroup + "/v1"
			if toHub {
				other = testGroup + "/v2"
			}
			mid, err := r.convert([]byte(tc.obj), toHub, other)
			if err != nil {
				t.Fatal(err)
			}
			kept := gjson.GetBytes(mid, annotationPath.get)
			if !kept.Exists() || !strings.Contains(kept.Str, tc.keptAside) {
				t.Errorf("nothing kept aside (want %s):\n%s", tc.keptAside, mid)
			}
			back, err := r.convert(mid, !toHub, gjsonStr(tc.obj, "apiVersion"))
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "round trip", string(back), tc.obj)
			if strings.Contains(string(back), Annotation) {
				t.Errorf("bookkeeping leaked back:\n%s", back)
			}
			if p, err := r.RoundTrip([]byte(tc.obj)); err != nil {
				t.Errorf("RoundTrip at %q: %v", p, err)
			}
		})
	}
}

// TestManyFieldsKeptAside: an object with many fields that a version lacks
// (at several depths) round-trips; each parent object is rebuilt once.
func TestManyFieldsKeptAside(t *testing.T) {
	_, r := frobber(t)
	var spec, deep []string
	for i := 0; i < 300; i++ {
		spec = append(spec, `"k`+itoa(i)+`":`+itoa(i))
		deep = append(deep, `"d`+itoa(i)+`":[`+itoa(i)+`]`)
	}
	for _, v := range []string{"v1", "v2"} {
		o := obj(v, `,"spec":{`+strings.Join(spec, ",")+`,"nested":{`+strings.Join(deep, ",")+`}},"extra":{"a":1}`)
		if p, err := r.RoundTrip([]byte(o)); err != nil {
			t.Errorf("%s: at %q: %v", v, p, err)
		}
	}
}

func TestSkippable(t *testing.T) {
	_, r := frobber(t)
	// status: v2 holds everything v1 does, not the other way round.
	v1Status, v2Status := r.spokeShape.props["status"], r.hubShape.props["status"]
	if !r.skip[v2Status] || r.skip[v1Status] {
		t.Errorf("skip v1 status %v, v2 status %v; want false, true", r.skip[v1Status], r.skip[v2Status])
	}
	if r.skip[r.spokeShape.props["spec"]] || r.skip[r.hubShape.props["spec"]] {
		t.Error("spec is touched by rules: never skipped")
	}
}
