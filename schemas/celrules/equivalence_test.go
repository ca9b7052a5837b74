package celrules

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	apischema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/warning"

	"github.com/specd-io/specd/internal/crdcorpus"
)

// kubeRules is kube-apiserver's own validator (apiextensions schema/cel)
// for a schema, built from the structural schema that Compile builds.
type kubeRules struct {
	structural *apischema.Structural
	validator  *cel.Validator
}

func kubeCompile(t testing.TB, s *openapi3.Schema) kubeRules {
	t.Helper()
	conv := converter{}
	props := conv.props(s, "")
	structural, err := apischema.NewStructural(&props)
	if err != nil {
		t.Fatal(err)
	}
	return kubeRules{structural: structural, validator: cel.NewValidator(structural, true, celconfig.PerCallLimit)}
}

// validate runs kube's validator as a CRD write does, with budget.
func (k kubeRules) validate(obj, old map[string]any, budget int64) (field.ErrorList, []string) {
	var opts []cel.Option
	var oldObj any
	if old != nil {
		oldObj = old
		opts = append(opts, cel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: k.structural})))
	}
	var warnings recorder
	ctx := warning.WithWarningRecorder(context.Background(), &warnings)
	errs, _ := k.validator.Validate(ctx, nil, k.structural, obj, oldObj, budget, opts...)
	return errs, warnings
}

// both is a schema's rules compiled by specd and by kube.
type both struct {
	ours *Rules
	kube kubeRules
}

func compileBoth(t testing.TB, s *openapi3.Schema) both {
	t.Helper()
	ours, probs := Compile(s)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return both{ours: ours, kube: kubeCompile(t, s)}
}

// same fails unless specd's Rules and kube's validator give the same
// errors (types, paths, values, details) and warnings for obj. The order
// of errors from different fields follows map iteration in both, so they
// are compared sorted.
func (b both) same(t *testing.T, name string, obj, old map[string]any, budget int64) {
	t.Helper()
	limited := *b.ours
	limited.budget = budget
	errs, warnings := limited.Validate(context.Background(), obj, old, nil)
	kubeErrs, kubeWarnings := b.kube.validate(obj, old, budget)
	got, want := sortedLines(errs, warnings), sortedLines(kubeErrs, kubeWarnings)
	if got != want {
		t.Errorf("%s (budget %d):\nspecd:\n%s\nkube:\n%s", name, budget, got, want)
	}
}

func sortedLines(errs field.ErrorList, warnings []string) string {
	lines := strings.Split(errorLines(errs), "\n")
	slices.Sort(lines)
	w := slices.Sorted(slices.Values(warnings))
	return strings.Join(lines, "\n") + "\nwarnings:\n" + strings.Join(w, "\n")
}

// The package's own cases, run through both.
func TestSameAsKube(t *testing.T) {
	cases := validateCases()
	maps.Copy(cases, kubeOnlyCases())
	for name, tc := range cases {
		b := compileBoth(t, parseSchema(t, tc.schema))
		b.same(t, name, object(t, tc.obj), object(t, tc.old), celconfig.RuntimeCELCostBudget)
	}
}

// With every budget from none to more than the 20 rules cost, the budget
// runs out at each rule in turn (and in a messageExpression), and the
// error and the rules run before it must be kube's. All the rules are on
// one node, so the order is the rules' own.
func TestSameAsKubeAsTheBudgetRunsOut(t *testing.T) {
	b := compileBoth(t, parseSchema(t, benchSchema()))
	failing := strings.Replace(benchObject("Alice"), `"image":"registry.example.com/team/app:1.4.2"`, `"image":"app:latest"`, 1)
	enough := int64(-1) // the least budget the create passes with
	for budget := int64(-1); budget <= 300; budget++ {
		obj := object(t, benchObject("alice"))
		b.same(t, "create", obj, nil, budget)
		b.same(t, "failing create", object(t, failing), nil, budget)
		b.same(t, "update", object(t, benchObject("bob")), object(t, benchObject("alice")), budget)
		limited := *b.ours
		limited.budget = budget
		if errs, _ := limited.Validate(context.Background(), obj, nil, nil); len(errs) == 0 && enough < 0 {
			enough = budget
		}
	}
	if enough < 20 {
		t.Errorf("the create passed with a budget of %d; the sweep must run out at each of the 20 rules", enough)
	}
}

// Every example of the corpus whose kind has rules, valid or not, on
// create, as an update that changes nothing (every failure ratcheted), and
// as an update from another example of the same kind.
func TestSameAsKubeOverTheCorpus(t *testing.T) {
	schemas := corpusSchemasWithRules(t)
	compared := 0
	first := map[string]map[string]any{}
	for _, ex := range corpusExamples(t) {
		b, ok := schemas[ex.key]
		if !ok {
			continue
		}
		budget := int64(celconfig.RuntimeCELCostBudget)
		b.same(t, ex.name+" create", ex.obj, nil, budget)
		b.same(t, ex.name+" unchanged", ex.obj, ex.obj, budget)
		if prev, ok := first[ex.key]; ok {
			b.same(t, ex.name+" update", ex.obj, prev, budget)
			b.same(t, ex.name+" reverse update", prev, ex.obj, budget)
		} else {
			first[ex.key] = ex.obj
		}
		compared++
	}
	if compared < 20 {
		t.Errorf("compared %d corpus examples; the corpus has more with rules", compared)
	}
}

// corpusSchemasWithRules is every corpus CRD version's schema that has
// rules, compiled by both, by "<group>/<version>/<kind>".
func corpusSchemasWithRules(t *testing.T) map[string]both {
	out := map[string]both{}
	dirs, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	for _, dir := range dirs {
		for _, v := range crdcorpus.VersionSchemas(t, dir) {
			var s openapi3.Schema
			if err := json.Unmarshal(v.Schema, &s); err != nil {
				t.Fatalf("%s %s: %v", v.CRD, v.Version, err)
			}
			if r, _ := Compile(&s); r != nil {
				out[v.Key] = compileBoth(t, &s)
			}
		}
	}
	return out
}

type corpusExample struct {
	name, key string
	obj       map[string]any
}

// corpusExamples are the corpus's objects: accepted, rejected and invalid.
func corpusExamples(t *testing.T) []corpusExample {
	var out []corpusExample
	files, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "*examples", "*.yaml"))
	for _, f := range files {
		for i, doc := range crdcorpus.YAMLDocs(t, f) {
			obj := object(t, string(doc))
			apiVersion, _ := obj["apiVersion"].(string)
			kind, _ := obj["kind"].(string)
			name := filepath.Base(f) + "#" + string(rune('0'+i))
			out = append(out, corpusExample{name: name, key: apiVersion + "/" + kind, obj: obj})
		}
	}
	return out
}

// kubeOnlyCases reach the corners of the evaluation that the package's
// other cases do not: map values, embedded resources, lists that are not
// map lists, int-or-string, evaluation errors and messageExpressions that
// fall back.
func kubeOnlyCases() map[string]validateCase {
	return map[string]validateCase{
		"map values, changed and unchanged": {
			schema: specSchema(`{"limits":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10","message":"small"}]}}}`, `[]`),
			obj:    `{"spec":{"limits":{"a":20,"b":30,"c":1}}}`,
			old:    `{"spec":{"limits":{"a":20,"b":3}}}`,
		},
		"atomic map": {
			schema: specSchema(`{"limits":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10","message":"small"}]}}}`, `[]`),
			obj:    `{"spec":{"limits":{"a":20,"b":30}}}`,
			old:    `{"spec":{"limits":{"a":20}}}`,
		},
		"set list items ratchet with their parent": {
			schema: specSchema(`{"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self != 'bad'","message":"not bad"}]}},"other":{"type":"string"}}`, `[]`),
			obj:    `{"spec":{"tags":["bad","ok"],"other":"x"}}`,
			old:    `{"spec":{"tags":["bad","ok"],"other":"y"}}`,
		},
		"atomic list items judged when the list changed": {
			schema: specSchema(`{"tags":{"type":"array","items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self != 'bad'","message":"not bad"}]}}}`, `[]`),
			obj:    `{"spec":{"tags":["bad","ok","new"]}}`,
			old:    `{"spec":{"tags":["bad","ok"]}}`,
		},
		"embedded resource": {
			schema: specSchema(`{"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,
				"x-kubernetes-validations":[{"rule":"self.kind == 'Pod' && self.metadata.name.startsWith('p-')","message":"a p- pod"}]}}`, `[]`),
			obj: `{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"}}}}`,
		},
		"int-or-string given a string": {
			schema: specSchema(`{"port":{"x-kubernetes-int-or-string":true,"x-kubernetes-validations":[{"rule":"self > 5","message":"above 5"}]}}`, `[]`),
			obj:    `{"spec":{"port":"http"}}`,
		},
		"evaluation error": {
			schema: specSchema(`{"list":{"type":"array","maxItems":10,"items":{"type":"integer"}}}`, `[{"rule":"self.list[3] > 0"},{"rule":"self.list.size() > 5","message":"long"}]`),
			obj:    `{"spec":{"list":[1,2]}}`,
		},
		"messageExpression empty, with a line break, or failing": {
			schema: specSchema(`{"n":{"type":"integer"},"s":{"type":"string","maxLength":10}}`,
				`[{"rule":"self.n > 5","messageExpression":"''","message":"empty"},{"rule":"self.n > 6","messageExpression":"'a\\nb'"},{"rule":"self.n > 7","messageExpression":"string(10 / (self.n - self.n))"}]`),
			obj: `{"spec":{"n":1,"s":"x"}}`,
		},
		"reason Duplicate and a nested fieldPath": {
			schema: specSchema(`{"a":{"type":"object","properties":{"b":{"type":"string"}}}}`, `[{"rule":"self.a.b != 'x'","reason":"FieldValueDuplicate","fieldPath":".a.b","message":"taken"}]`),
			obj:    `{"spec":{"a":{"b":"x"}}}`,
			old:    `{"spec":{"a":{"b":"y"}}}`,
		},
		"a transition rule is judged on an unchanged value": {
			schema: specSchema(`{"mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf && self != 'x'","message":"not x"}]},"other":{"type":"string"}}`, `[]`),
			obj:    `{"spec":{"mode":"x","other":"a"}}`,
			old:    `{"spec":{"mode":"x","other":"b"}}`,
		},
		"apiVersion and kind are never ratcheted": {
			schema: `{"type":"object","properties":{"kind":{"type":"string","x-kubernetes-validations":[{"rule":"self == 'K'","message":"kind K"}]}}}`,
			obj:    `{"apiVersion":"v1","kind":"J"}`,
			old:    `{"apiVersion":"v1","kind":"J"}`,
		},
	}
}
