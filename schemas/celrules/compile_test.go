package celrules

import (
	"fmt"
	"strings"
	"testing"
)

func TestCompileProblems(t *testing.T) {
	tests := map[string]struct {
		schema string
		want   string
	}{
		"rule does not compile": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.b > 0"}]`),
			want:   "/properties/spec/x-kubernetes-validations/0/rule: Invalid value: \"self.b > 0\": compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 0\n | ....^",
		},
		"rule not boolean": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a"}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/rule: Invalid value: "self.a": cel expression must evaluate to a bool`,
		},
		"empty rule": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":" "}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/rule: Required value: rule is not specified`,
		},
		"rule over the per-expression cost limit": {
			schema: specSchema(`{"list":{"type":"array","items":{"type":"string"}}}`, `[{"rule":"self.list.all(x, self.list.all(y, x == y))"}]`),
			want: "/properties/spec/x-kubernetes-validations/0/rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n" +
				"/properties/spec/x-kubernetes-validations/0/rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		},
		"messageExpression over the per-expression cost limit": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","messageExpression":"'a is ' + string(self.a)"}]`),
			want: "/properties/spec/x-kubernetes-validations/0/messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n" +
				"/properties/spec/x-kubernetes-validations/0/messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		},
		"rules over the per-CRD cost limit together": {
			// Each rule is within the per-expression limit (10M): 1000
			// items of up to 1000 items of strings of up to 10 bytes.
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"groups":{"type":"array","maxItems":1000,"items":{"type":"array","maxItems":1000,"items":{"type":"string","maxLength":10},
				"x-kubernetes-validations":[{"rule":"self.all(x, x != 'a')"},{"rule":"self.all(x, x != 'b')"},{"rule":"self.all(x, x != 'c')"},{"rule":"self.all(x, x != 'd')"},{"rule":"self.all(x, x != 'e')"},{"rule":"self.all(x, x != 'f')"},{"rule":"self.all(x, x != 'g')"},{"rule":"self.all(x, x != 'h')"},{"rule":"self.all(x, x != 'i')"},{"rule":"self.all(x, x != 'j')"},{"rule":"self.all(x, x != 'k')"},{"rule":"self.all(x, x != 'l')"},{"rule":"self.all(x, x != 'm')"},{"rule":"self.all(x, x != 'n')"},{"rule":"self.all(x, x != 'o')"},{"rule":"self.all(x, x != 'p')"},{"rule":"self.all(x, x != 'q')"},{"rule":"self.all(x, x != 'r')"},{"rule":"self.all(x, x != 's')"},{"rule":"self.all(x, x != 't')"},{"rule":"self.all(x, x != 'u')"},{"rule":"self.all(x, x != 'v')"},{"rule":"self.all(x, x != 'w')"},{"rule":"self.all(x, x != 'x')"},{"rule":"self.all(x, x != 'y')"},{"rule":"self.all(x, x != 'z')"}]}}}}}}`,
			want: "/properties/spec/properties/groups/items/x-kubernetes-validations/0/rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/properties/spec/properties/groups/items/x-kubernetes-validations/1/rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/properties/spec/properties/groups/items/x-kubernetes-validations/2/rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/properties/spec/properties/groups/items/x-kubernetes-validations/3/rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
				"/: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.300520x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		},
		"oldSelf below an atomic list": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"list":{"type":"array","items":{"type":"string","maxLength":5,"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}}}`,
			want:   `/properties/spec/properties/list/items/x-kubernetes-validations/0/rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within /properties/spec/properties/list`,
		},
		"optionalOldSelf without oldSelf": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","optionalOldSelf":true}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
		},
		"unsupported reason": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","reason":"FieldValueBad"}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
		},
		"fieldPath not in the schema": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","fieldPath":".b"}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/fieldPath: Invalid value: ".b": must be a valid path`,
		},
		"message with a line break": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","message":"one\ntwo"}]`),
			want:   `/properties/spec/x-kubernetes-validations/0/message: Invalid value: "one\ntwo": must not contain line breaks`,
		},
		"rules inside allOf, anyOf, oneOf and not": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer"}},
				"allOf":[{"properties":{"a":{"x-kubernetes-validations":[{"rule":"self > 0"}]}}}],
				"anyOf":[{"x-kubernetes-validations":[{"rule":"has(self.a)"}]}],
				"oneOf":[{"required":["a"]},{"not":{"x-kubernetes-validations":[{"rule":"has(self.a)"}]}}]}}}`,
			want: "/properties/spec/allOf/0/properties/a/x-kubernetes-validations: Forbidden: must be empty to be structural\n" +
				"/properties/spec/anyOf/0/x-kubernetes-validations: Forbidden: must be empty to be structural\n" +
				"/properties/spec/oneOf/1/not/x-kubernetes-validations: Forbidden: must be empty to be structural",
		},
		"not a list of rules": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `{"rule":"self.a > 0"}`),
			want:   `/properties/spec/x-kubernetes-validations: invalid x-kubernetes-validations: json: cannot unmarshal object into Go value of type []celrules.rule`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, probs := compileJSON(t, tc.schema)
			if r != nil {
				t.Error("got rules despite problems")
			}
			if got := problemLines(probs); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestCompileAllowsBoundedRules(t *testing.T) {
	// The same rule as the per-expression refusal, with limits.
	r := mustCompile(t, specSchema(`{"list":{"type":"array","maxItems":100,"items":{"type":"string","maxLength":10}}}`, `[{"rule":"self.list.all(x, self.list.all(y, x == y))"}]`))
	if r.Count() != 1 {
		t.Errorf("Count() = %d, want 1", r.Count())
	}
}

func TestRuntimeBudgetExhausted(t *testing.T) {
	// Rules each well within the estimated limits that together cost more
	// than kube's runtime budget per request (10M) on a 1 MiB string: the
	// first rules use it up and the rest are not run.
	var rules []string
	for i := 0; i < 120; i++ {
		rules = append(rules, fmt.Sprintf(`{"rule":"!self.contains('needle %d')"}`, i))
	}
	r := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"text":{"type":"string","maxLength":1048576,
		"x-kubernetes-validations":[`+strings.Join(rules, ",")+`]}}}}}`)
	got := validate(t, r, `{"spec":{"text":"`+strings.Repeat("a", 1<<20)+`"}}`, "")
	want := `FieldValueInvalid spec.text: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A short string is well within the budget.
	if got := validate(t, r, `{"spec":{"text":"abc"}}`, ""); got != "" {
		t.Errorf("short string: %s", got)
	}
}
