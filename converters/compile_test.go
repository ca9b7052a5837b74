package converters

import (
	"strings"
	"testing"
)

// TestCompileProblems: every bad rule is reported with the file and the
// JSON pointer of the rule (or of its faulty argument).
func TestCompileProblems(t *testing.T) {
	const at = rulesPointer
	tests := map[string]struct {
		rules string
		want  []string // "pointer: message substring", in order
	}{
		"spoke path absent": {
			`[{rename: {from: spec.heigth, to: spec.heightInInches}}]`,
			[]string{at + "/0/rename/from: the spoke (this version) schema has no field spec.heigth"},
		},
		"hub path absent": {
			`[{rename: {from: spec.height, to: spec.height}}]`,
			[]string{at + "/0/rename/to: the hub (storage version) schema has no field spec.height"},
		},
		"two rules write one field": {
			`[{rename: {from: spec.height, to: spec.heightInInches}}, {rename: {from: spec.width, to: spec.heightInInches}}]`,
			[]string{at + "/1: two rules write hub field spec.heightInInches (the other is " + at + "/0)"},
		},
		"two rules read one field": {
			`[{rename: {from: spec.height, to: spec.heightInInches}}, {rename: {from: spec.height, to: spec.widthInInches}}]`,
			[]string{at + "/1: two rules read spoke field spec.height"},
		},
		"a write before the read of the same field": {
			`[{rename: {from: spec.param, to: spec.mode}}, {rename: {from: spec.mode, to: spec.unit}}]`,
			[]string{at + "/1: reads spec.mode, which the earlier rule " + at + "/0 writes: list this rule first"},
		},
		"types differ": {
			`[{rename: {from: spec.param, to: spec.heightInInches}}]`,
			[]string{at + "/0/rename/to: types differ: spoke string, hub integer"},
		},
		"split of a non-string": {
			`[{split: {from: spec.height, to: spec.args, separator: " "}}]`,
			[]string{at + "/0/split/from: split needs a field of type string, not integer"},
		},
		"split into a non-list": {
			`[{split: {from: spec.command, to: spec.color, separator: " "}}]`,
			[]string{at + "/0/split/to: split needs a field of type array, not string"},
		},
		"split without separator": {
			`[{split: {from: spec.command, to: spec.args}}]`,
			[]string{at + "/0/split: split: separator is required"},
		},
		"toList of another type": {
			`[{toList: {from: spec.height, to: spec.params}}]`,
			[]string{at + "/0/toList/to: types differ: spoke integer, hub string"},
		},
		"enum not one to one": {
			`[{enum: {from: spec.mode, values: {fast: Fast, quick: Fast}}}]`,
			[]string{at + "/0/enum/values/"},
		},
		"enum of a non-string": {
			`[{enum: {from: spec.height, to: spec.heightInInches, values: {a: b}}}]`,
			[]string{at + "/0/enum/from: enum needs a field of type string, not integer", at + "/0/enum/to: enum needs"},
		},
		"constant the other side holds": {
			`[{constant: {to: spec.mode, value: Fast}}]`,
			[]string{at + "/0/constant/to: the spoke (this version) schema has a place for spec.mode: use rename"},
		},
		"constant of the wrong type": {
			`[{constant: {to: spec.unit, value: 3}}]`,
			[]string{at + "/0/constant/value: value 3 does not fit the string field spec.unit"},
		},
		"constant with both sides": {
			`[{constant: {from: spec.legacy, to: spec.unit, value: x}}]`,
			[]string{at + "/0/constant: constant: give exactly one of from"},
		},
		"unknown kind": {
			`[{move: {from: spec.height, to: spec.heightInInches}}]`,
			[]string{at + "/0/move: unknown rule kind \"move\""},
		},
		"two kinds in one rule": {
			`[{rename: {from: a, to: b}, enum: {from: a}}]`,
			[]string{at + "/0: a rule is a map with exactly one key"},
		},
		"unknown argument": {
			`[{rename: {from: spec.height, to: spec.heightInInches, via: x}}]`,
			[]string{at + "/0/rename/via: unknown field \"via\" of rename"},
		},
		"metadata is off limits": {
			`[{rename: {from: metadata.name, to: spec.color}}]`,
			[]string{at + "/0/rename/from: metadata.name: rules cannot touch apiVersion, kind or metadata"},
		},
		"nest field missing": {
			`[{nest: {from: spec, fields: [height, depth], to: spec}}]`,
			[]string{at + "/0/nest/fields/0: the hub (storage version) schema has no field spec.height",
				at + "/0/nest/fields/1: the spoke (this version) schema has no field spec.depth"},
		},
		"every problem at once": {
			`[{rename: {from: spec.x, to: spec.y}}, {split: {from: spec.height, to: spec.args, separator: ","}}]`,
			[]string{at + "/0/rename/from:", at + "/0/rename/to:", at + "/1/split/from:"},
		},
	}
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2})
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, probs := Compile(res.Version("v1"), res.Version("v2"), ruleList(t, tc.rules), "v1.yaml", at)
			if r != nil {
				t.Error("Rules returned despite problems")
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %v", len(probs), len(tc.want), probs)
			}
			for i, p := range probs {
				if p.File != "v1.yaml" {
					t.Errorf("problem %d: file %q", i, p.File)
				}
				if got := p.Pointer + ": " + p.Message; !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got, tc.want[i])
				}
			}
		})
	}
}

// TestCompileElementProblems: rules that go into list elements are checked
// like the others, each problem with the pointer of the rule.
func TestCompileElementProblems(t *testing.T) {
	const at = rulesPointer
	spoke := specSchema(`{ports: {type: array, items: {type: object, properties: {portName: {type: string}, port: {type: integer}}}},
		color: {type: string}, modes: {type: array, items: {type: string}}, matrix: {type: array, items: {type: array, items: {type: string}}}}`)
	hub := specSchema(`{ports: {type: array, items: {type: object, properties: {name: {type: string}, port: {type: integer}, alias: {type: string}}}},
		endpoints: {type: array, items: {type: object, properties: {name: {type: string}}}}, color: {type: string}, modes: {type: array, items: {type: string}}}`)
	tests := map[string]struct {
		rules string
		want  []string // "pointer: message substring", in order
	}{
		"[*] on a field that is not a list": {
			`[{rename: {from: "spec.color[*].x", to: "spec.ports[*].name"}}]`,
			[]string{at + "/0/rename/from: spec.color[*].x: in the spoke (this version) schema, spec.color is not a list"},
		},
		"a field absent from the elements": {
			`[{rename: {from: "spec.ports[*].portNmae", to: "spec.ports[*].name"}}]`,
			[]string{at + "/0/rename/from: the spoke (this version) schema has no field spec.ports[*].portNmae"},
		},
		"into a list on one side only": {
			`[{rename: {from: "spec.ports[*].portName", to: spec.color}}]`,
			[]string{at + "/0/rename/to: spec.ports[*].portName and spec.color go into 1 and 0 lists"},
		},
		"the elements themselves": {
			`[{rename: {from: "spec.ports[*]", to: "spec.endpoints[*]"}}]`,
			[]string{at + "/0/rename/from: spec.ports[*] names the elements of a list", at + "/0/rename/to: spec.endpoints[*] names the elements"},
		},
		"an index": {
			`[{rename: {from: "spec.ports[0].portName", to: "spec.ports[*].name"}}]`,
			[]string{at + "/0/rename/from: \"spec.ports[0].portName\": \"ports[0]\": only [*] (every element) may follow a field name"},
		},
		"a list of lists": {
			`[{enum: {from: "spec.matrix[*][*]", to: "spec.modes[*]", values: {a: A}}}]`,
			[]string{at + "/0/enum/from: \"spec.matrix[*][*]\": \"matrix[*][*]\": a list of lists cannot be named"},
		},
		"two lists": {
			`[{rename: {from: "spec.ports[*].portName", to: "spec.endpoints[*].name"}}]`,
			[]string{at + "/0: spec.ports[*].portName and spec.endpoints[*].name are not in one list: the rules take the spoke's spec.ports to the hub's spec.ports, not to spec.endpoints"},
		},
		"two rules write one element field": {
			`[{rename: {from: "spec.ports[*].portName", to: "spec.ports[*].name"}}, {constant: {to: "spec.ports[*].name", value: x}}]`,
			[]string{at + "/1: two rules write hub field spec.ports[*].name (the other is " + at + "/0)"},
		},
		"a rule on the list and one in its elements": {
			`[{toList: {from: spec.color, to: spec.modes}}, {enum: {from: "spec.modes[*]", values: {a: A}}}]`,
			[]string{at + "/1: two rules write hub field spec.modes[*]"},
		},
		"enum of elements into a field": {
			`[{enum: {from: "spec.modes[*]", to: "spec.ports[*].name", values: {a: A}}}]`,
			[]string{at + "/0/enum/to: spec.modes[*] and spec.ports[*].name: either both or neither name the elements themselves"},
		},
		"a constant in elements the other version has no list for": {
			`[{constant: {to: "spec.endpoints[*].name", value: x}}]`,
			[]string{at + "/0: the spoke (this version) schema has no list spec.endpoints for the elements this rule names"},
		},
		"types differ in elements": {
			`[{rename: {from: "spec.ports[*].port", to: "spec.ports[*].alias"}}]`,
			[]string{at + "/0/rename/to: types differ: spoke integer, hub string"},
		},
	}
	res := resource(t, "Frobber", "v2", map[string]string{"v1": spoke, "v2": hub})
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, probs := Compile(res.Version("v1"), res.Version("v2"), ruleList(t, tc.rules), "v1.yaml", at)
			if r != nil {
				t.Error("Rules returned despite problems")
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %v", len(probs), len(tc.want), probs)
			}
			for i, p := range probs {
				if got := p.Pointer + ": " + p.Message; !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got, tc.want[i])
				}
			}
		})
	}
}
