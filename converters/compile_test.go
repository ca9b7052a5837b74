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
