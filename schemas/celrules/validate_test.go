package celrules

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// specSchema is an object schema whose spec carries the rules given.
func specSchema(specProps, rules string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","properties":` + specProps +
		`,"x-kubernetes-validations":` + rules + `}}}`
}

// validateCase is an object (and its old value on update, "" on create)
// against a schema, and the errors wanted, as errorLines renders them.
type validateCase struct {
	schema   string
	obj, old string
	want     string
}

// validateCases are the package's cases of rule evaluation; the same
// inputs are run through kube's own validator in TestSameAsKube.
func validateCases() map[string]validateCase {
	return map[string]validateCase{
		"create passes": {
			schema: specSchema(`{"min":{"type":"integer"},"max":{"type":"integer"}}`, `[{"rule":"self.min <= self.max","message":"min must not exceed max"}]`),
			obj:    `{"spec":{"min":1,"max":2}}`,
		},
		"message": {
			schema: specSchema(`{"min":{"type":"integer"},"max":{"type":"integer"}}`, `[{"rule":"self.min <= self.max","message":"min must not exceed max"}]`),
			obj:    `{"spec":{"min":3,"max":2}}`,
			want:   `FieldValueInvalid spec: Invalid value: min must not exceed max`,
		},
		"default message names the rule": {
			schema: specSchema(`{"min":{"type":"integer"},"max":{"type":"integer"}}`, `[{"rule":"self.min <= self.max"}]`),
			obj:    `{"spec":{"min":3,"max":2}}`,
			want:   `FieldValueInvalid spec: Invalid value: failed rule: self.min <= self.max`,
		},
		"messageExpression": {
			schema: specSchema(`{"name":{"type":"string","maxLength":20},"taken":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":20}}}`,
				`[{"rule":"!(self.name in self.taken)","messageExpression":"'name ' + self.name + ' is taken'","message":"static message"}]`),
			obj:  `{"spec":{"name":"blue","taken":["red","blue"]}}`,
			want: `FieldValueInvalid spec: Invalid value: name blue is taken`,
		},
		"messageExpression failing falls back to message": {
			schema: specSchema(`{"name":{"type":"string","maxLength":20},"taken":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":20}}}`,
				`[{"rule":"!(self.name in self.taken)","messageExpression":"self.taken[5]","message":"static message"}]`),
			obj:  `{"spec":{"name":"blue","taken":["red","blue"]}}`,
			want: `FieldValueInvalid spec: Invalid value: static message`,
		},
		"reason and fieldPath": {
			schema: specSchema(`{"name":{"type":"string"}}`, `[{"rule":"self.name != 'admin'","message":"admin is reserved","reason":"FieldValueForbidden","fieldPath":".name"}]`),
			obj:    `{"spec":{"name":"admin"}}`,
			want:   `FieldValueForbidden spec.name: Forbidden: admin is reserved`,
		},
		"reason Required": {
			schema: specSchema(`{"a":{"type":"string"},"b":{"type":"string"}}`, `[{"rule":"has(self.a) || has(self.b)","message":"a or b is required","reason":"FieldValueRequired"}]`),
			obj:    `{"spec":{}}`,
			want:   `FieldValueRequired spec: Required value: a or b is required`,
		},
		"rule on a scalar shows the value": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","x-kubernetes-validations":[{"rule":"self % 2 == 1","message":"must be odd"}]}}}}}`,
			obj:    `{"spec":{"replicas":4}}`,
			want:   `FieldValueInvalid spec.replicas: Invalid value: 4: must be odd`,
		},
		"one cause per failed rule": {
			schema: specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","message":"positive"},{"rule":"self.a % 2 == 0","message":"even"},{"rule":"self.a < 100","message":"small"}]`),
			obj:    `{"spec":{"a":-1}}`,
			want:   "FieldValueInvalid spec: Invalid value: positive\nFieldValueInvalid spec: Invalid value: even",
		},
		"rules on list items name the index": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"ports":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 65536","message":"not a port"}]}}}}}}`,
			obj:    `{"spec":{"ports":[80,70000]}}`,
			want:   `FieldValueInvalid spec.ports[1]: Invalid value: 70000: not a port`,
		},
		"metadata.name at the root": {
			schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('x-')","message":"name must start with x-"}]}`,
			obj:    `{"apiVersion":"v1","kind":"K","metadata":{"name":"y"}}`,
			want:   `FieldValueInvalid <nil>: Invalid value: name must start with x-`,
		},
		"kubernetes libraries": {
			schema: specSchema(`{"cidr":{"type":"string"},"url":{"type":"string"},"q":{"type":"string"},"v":{"type":"string"},"tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10}}}`,
				`[{"rule":"isCIDR(self.cidr) && cidr(self.cidr).containsIP(ip('10.0.0.1'))","message":"cidr"},
				  {"rule":"isURL(self.url) && url(self.url).getScheme() == 'https'","message":"url"},
				  {"rule":"isQuantity(self.q) && quantity(self.q).isLessThan(quantity('1Gi'))","message":"quantity"},
				  {"rule":"isSemver(self.v) && semver(self.v).major() == 1","message":"semver"},
				  {"rule":"self.tags.isSorted() && sets.contains(self.tags, ['a'])","message":"lists and sets"},
				  {"rule":"self.url.matches('^https://') && !format.dns1123Label().validate('ok').hasValue()","message":"regex and format"}]`),
			obj: `{"spec":{"cidr":"10.0.0.0/8","url":"https://example.com/x","q":"500Mi","v":"1.2.3","tags":["a","b"]}}`,
		},
		"kubernetes libraries refuse": {
			schema: specSchema(`{"cidr":{"type":"string"},"q":{"type":"string"}}`,
				`[{"rule":"cidr(self.cidr).containsIP(ip('10.0.0.1'))","message":"cidr"},{"rule":"quantity(self.q).isLessThan(quantity('1Gi'))","message":"quantity"}]`),
			obj:  `{"spec":{"cidr":"192.168.0.0/16","q":"2Gi"}}`,
			want: "FieldValueInvalid spec: Invalid value: cidr\nFieldValueInvalid spec: Invalid value: quantity",
		},
		"transition rule on update": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"b"}}`,
			old:    `{"spec":{"mode":"a"}}`,
			want:   `FieldValueInvalid spec.mode: Invalid value: "b": mode is immutable`,
		},
		"transition rule unchanged": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"a"}}`,
			old:    `{"spec":{"mode":"a"}}`,
		},
		"transition rule skipped on create": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"b"}}`,
		},
		"transition rule skipped when the old value is absent": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"b"}}`,
			old:    `{"spec":{}}`,
		},
		"optionalOldSelf runs on create": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"oldSelf.hasValue() || self == 'a'","optionalOldSelf":true,"message":"must be created as a"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"b"}}`,
			want:   `FieldValueInvalid spec.mode: Invalid value: "b": must be created as a`,
		},
		"optionalOldSelf sees the old value": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"!oldSelf.hasValue() || oldSelf.value() != 'locked' || self == 'locked'","optionalOldSelf":true,"message":"locked stays locked"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"open"}}`,
			old:    `{"spec":{"mode":"locked"}}`,
			want:   `FieldValueInvalid spec.mode: Invalid value: "open": locked stays locked`,
		},
		"optionalOldSelf created valid": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"oldSelf.hasValue() || self == 'a'","optionalOldSelf":true,"message":"must be created as a"}]}}`, `[]`),
			obj:    `{"spec":{"mode":"a"}}`,
		},
		"ratcheting: an unchanged invalid value is not judged again": {
			schema: specSchema(`{"size":{"type":"integer","x-kubernetes-validations":[{"rule":"self <= 10","message":"at most 10"}]},"label":{"type":"string"}}`, `[]`),
			obj:    `{"spec":{"size":20,"label":"new"}}`,
			old:    `{"spec":{"size":20,"label":"old"}}`,
		},
		"ratcheting: a changed invalid value is judged": {
			schema: specSchema(`{"size":{"type":"integer","x-kubernetes-validations":[{"rule":"self <= 10","message":"at most 10"}]},"label":{"type":"string"}}`, `[]`),
			obj:    `{"spec":{"size":30,"label":"old"}}`,
			old:    `{"spec":{"size":20,"label":"old"}}`,
			want:   `FieldValueInvalid spec.size: Invalid value: 30: at most 10`,
		},
		"ratcheting: a rule on a changed object is judged": {
			schema: specSchema(`{"min":{"type":"integer"},"max":{"type":"integer"}}`, `[{"rule":"self.min <= self.max","message":"min must not exceed max"}]`),
			obj:    `{"spec":{"min":5,"max":2}}`,
			old:    `{"spec":{"min":3,"max":2}}`,
			want:   `FieldValueInvalid spec: Invalid value: min must not exceed max`,
		},
		"ratcheting: map list items correlate by key": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
				"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"n":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.n < 10","message":"n below 10"}]}}}}}}`,
			obj:  `{"spec":{"items":[{"name":"new","n":11},{"name":"kept","n":50}]}}`,
			old:  `{"spec":{"items":[{"name":"kept","n":50}]}}`,
			want: `FieldValueInvalid spec.items[0]: Invalid value: n below 10`,
		},
	}
}

func TestValidate(t *testing.T) {
	for name, tc := range validateCases() {
		t.Run(name, func(t *testing.T) {
			r := mustCompile(t, tc.schema)
			if got := validate(t, r, tc.obj, tc.old); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestRatchetedFailureIsAWarning(t *testing.T) {
	r := mustCompile(t, specSchema(`{"size":{"type":"integer","x-kubernetes-validations":[{"rule":"self <= 10","message":"at most 10"}]},"label":{"type":"string"}}`, `[]`))
	errs, warnings := r.Validate(context.Background(), object(t, `{"spec":{"size":20,"label":"new"}}`), object(t, `{"spec":{"size":20,"label":"old"}}`), nil)
	if len(errs) > 0 {
		t.Fatalf("ratcheted value refused: %v", errs)
	}
	if len(warnings) != 1 || warnings[0] != "spec.size: Invalid value: 20: at most 10" {
		t.Errorf("warnings %q, want the ratcheted failure", warnings)
	}
}

func TestBlockingErrorsSkipRules(t *testing.T) {
	r := mustCompile(t, specSchema(`{"a":{"type":"integer"}}`, `[{"rule":"self.a > 0","message":"positive"}]`))
	prior := field.ErrorList{field.Required(field.NewPath("spec", "b"), "")}
	errs, _ := r.Validate(context.Background(), object(t, `{"spec":{"a":-1}}`), nil, prior)
	got := errorLines(errs)
	want := "FieldValueRequired spec.b: Required value\n" +
		"FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A plain Invalid does not block: the rule still runs.
	prior = field.ErrorList{field.Invalid(field.NewPath("spec", "b"), "x", "bad")}
	errs, _ = r.Validate(context.Background(), object(t, `{"spec":{"a":-1}}`), nil, prior)
	got = errorLines(errs)
	want = "FieldValueInvalid spec.b: Invalid value: \"x\": bad\nFieldValueInvalid spec: Invalid value: positive"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNoRules(t *testing.T) {
	r, probs := compileJSON(t, `{"type":"object","properties":{"spec":{"type":"object"}}}`)
	if r != nil || len(probs) > 0 {
		t.Fatalf("got rules %v, problems %v; want neither", r, probs)
	}
	if errs, _ := r.Validate(context.Background(), object(t, `{"spec":{}}`), nil, nil); len(errs) > 0 {
		t.Errorf("nil rules gave errors: %v", errs)
	}
}

// Rules are shared by every request of a resource: validations running at
// once build the schema adapters' children once between them (run with
// -race).
func TestValidateConcurrently(t *testing.T) {
	r := mustCompile(t, benchSchema())
	obj, old := object(t, benchObject("alice")), object(t, benchObject("bob"))
	errc := make(chan string, 8)
	for range 8 {
		go func() {
			errs, _ := r.Validate(context.Background(), obj, nil, nil)
			upd, _ := r.Validate(context.Background(), obj, old, nil)
			errc <- errorLines(errs) + "|" + errorLines(upd)
		}()
	}
	for range 8 {
		if got := <-errc; got != "|FieldValueInvalid spec: Invalid value: owner is immutable" {
			t.Errorf("got %q", got)
		}
	}
}
