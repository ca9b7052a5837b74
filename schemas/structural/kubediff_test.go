package structural

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/internal/crdcorpus"
)

// This file checks Validate against kube-openapi's own validator, set up
// the way apiextensions-apiserver sets it up, on the corpus objects and on
// thousands of mutations of them. It covers the schema errors (not the
// embedded-resource and list-type checks, which kube does elsewhere).

// oracle is kube-openapi's validator for one schema.
type oracle struct {
	v *validate.SchemaValidator
}

func newOracle(t testing.TB, schemaJSON []byte) *oracle {
	t.Helper()
	var s spec.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		t.Fatalf("oracle schema: %v", err)
	}
	prepareForKube(&s)
	return &oracle{v: validate.NewSchemaValidator(&s, nil, "", strfmt.Default)}
}

// prepareForKube does what apiextensions-apiserver does to a CRD schema
// before validating with it: int-or-string becomes the type list
// [integer, string], and formats kube does not support are dropped.
func prepareForKube(s *spec.Schema) {
	if s == nil {
		return
	}
	if ios, _ := s.Extensions.GetBool("x-kubernetes-int-or-string"); ios {
		s.Type = spec.StringOrArray{"integer", "string"}
	}
	if s.Format != "" {
		single := ""
		if len(s.Type) == 1 {
			single = s.Type[0]
		}
		keep := false
		switch single {
		case "", "string":
			keep = stringFormats[strings.ReplaceAll(s.Format, "-", "")]
		case "integer":
			keep = s.Format == "int32" || s.Format == "int64"
		case "number":
			keep = s.Format == "float" || s.Format == "double"
		}
		if !keep {
			s.Format = ""
		}
	}
	for k, p := range s.Properties {
		prepareForKube(&p)
		s.Properties[k] = p
	}
	if s.Items != nil {
		prepareForKube(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		prepareForKube(s.AdditionalProperties.Schema)
	}
	for _, l := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			prepareForKube(&l[i])
		}
	}
	prepareForKube(s.Not)
}

// errors validates obj and turns kube-openapi's result into field errors
// the way kube-apiserver does.
func (o *oracle) errors(obj map[string]any) field.ErrorList {
	res := o.v.Validate(obj)
	var out field.ErrorList
	for _, err := range res.Errors {
		e, ok := err.(*openapierrors.Validation)
		if !ok {
			out = append(out, field.Invalid(nil, "", err.Error()))
			continue
		}
		var p *field.Path
		if e.Name != "" && e.Name != "." {
			p = field.NewPath(strings.TrimPrefix(e.Name, "."))
		}
		value := e.Value
		if value == nil {
			value = ""
		}
		switch e.Code() {
		case openapierrors.RequiredFailCode:
			out = append(out, field.Required(p, ""))
		case openapierrors.EnumFailCode:
			var values []string
			for _, a := range e.Values {
				values = append(values, enumString(a))
			}
			out = append(out, field.NotSupported(p, e.Value, values))
		case openapierrors.TooLongFailCode:
			out = append(out, field.TooLong(p, "", int(asInt(e.Valid))))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			out = append(out, field.TooMany(p, int(asInt(e.Value)), int(asInt(e.Valid))))
		case openapierrors.InvalidTypeCode:
			out = append(out, field.TypeInvalid(p, value, e.Error()))
		default:
			out = append(out, field.Invalid(p, value, e.Error()))
		}
	}
	return out
}

func asInt(v any) int64 {
	if i, ok := v.(int64); ok {
		return i
	}
	return -1
}

// schemaErrors is Validate without the embedded-resource and list-type
// checks.
func (s *Schema) schemaErrors(obj map[string]any) field.ErrorList {
	v := validator{p: walkPath{segs: make([]seg, 0, 16)}}
	v.value(s.root, obj, true, true)
	return v.errs
}

func sortedErrorStrings(errs field.ErrorList) []string {
	out := errorStrings(errs)
	sort.Strings(out)
	return out
}

// compareWithKube validates obj (without its type and object meta, which
// Validate leaves to the engine) with both validators.
func compareWithKube(t *testing.T, name string, s *Schema, o *oracle, obj map[string]any) bool {
	t.Helper()
	body := make(map[string]any, len(obj))
	for k, v := range obj {
		if !isMetaField(k) {
			body[k] = v
		}
	}
	var want field.ErrorList
	for _, e := range o.errors(body) {
		if !isMetaField(strings.SplitN(e.Field, ".", 2)[0]) {
			want = append(want, e)
		}
	}
	got, wantS := sortedErrorStrings(s.schemaErrors(body)), sortedErrorStrings(want)
	if joinLines(got) != joinLines(wantS) {
		t.Errorf("%s: differs from kube-openapi\nobject: %s\ngot:\n%s\nkube-openapi:\n%s", name, toJSON(t, body), joinLines(got), joinLines(wantS))
		return false
	}
	return true
}

func TestValidateMatchesKubeOpenAPI(t *testing.T) {
	schemas := []string{widgetSchema, fuzzSchema, benchSchema()}
	objs := []string{
		`{"spec":{"size":0,"color":"pink"}}`, `{"spec":{}}`, `{"spec":{"size":"big","color":1,"tags":[1,"a",true]}}`,
		`{"spec":{"n":3,"s":"ABCDEFG","set":["a","a","b","c"],"m":[{"k":"x"},{"k":"x"}],"labels":{"a":null,"b":"1","c":2}}}`,
		`{"spec":{"n":1e300,"p":1.5,"m":[{"j":null},{"j":1}],"one":{"a":"1","b":"2","c":"3"}}}`,
		`{"spec":{"n":-2,"p":true,"one":{},"s":"bb","labels":{}}}`,
	}
	for i, src := range schemas {
		s := mustCompile(t, src)
		o := newOracle(t, []byte(src))
		for j, obj := range objs {
			compareWithKube(t, "schema "+itoa(i)+" object "+itoa(j), s, o, object(t, obj))
		}
	}
}

// TestCorpusMatchesKubeOpenAPI mutates every corpus object many times and
// compares the schema errors with kube-openapi's.
func TestCorpusMatchesKubeOpenAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("long differential test")
	}
	corpusDir := crdcorpus.Dir(t)
	projects, _ := filepath.Glob(filepath.Join(corpusDir, "*", "crds"))
	if len(projects) == 0 {
		t.Fatal("CRD corpus missing")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	compared, failed := 0, 0
	for _, dir := range projects {
		project := filepath.Base(filepath.Dir(dir))
		schemas := corpusSchemaSources(t, corpusDir, project)
		for _, sub := range []string{"examples", "invalid-examples", "rejected-examples"} {
			files, _ := filepath.Glob(filepath.Join(corpusDir, project, sub, "*.yaml"))
			for _, f := range files {
				for i, doc := range crdcorpus.YAMLDocs(t, f) {
					var obj map[string]any
					if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
						t.Fatal(err)
					}
					av, _ := obj["apiVersion"].(string)
					kind, _ := obj["kind"].(string)
					src, ok := schemas[av+"/"+kind]
					if !ok {
						continue
					}
					s := mustCompile(t, string(src))
					o := newOracle(t, src)
					name := project + "/" + sub + "/" + filepath.Base(f) + "#" + itoa(i)
					for m := 0; m < 40 && failed < 10; m++ {
						mutant := deepCopy(obj).(map[string]any)
						if m > 0 {
							for k := 0; k <= m%4; k++ {
								if rng.IntN(2) == 0 {
									mutate(rng, mutant)
								} else {
									addDeclared(rng, mutant, s.root)
								}
							}
						}
						compared++
						if !compareWithKube(t, name+" mutant "+itoa(m), s, o, mutant) {
							failed++
						}
					}
				}
			}
		}
	}
	t.Logf("compared %d objects with kube-openapi", compared)
}

// corpusSchemaSources returns each CRD version's openAPIV3Schema as JSON.
func corpusSchemaSources(t *testing.T, corpusDir, project string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, v := range crdcorpus.VersionSchemas(t, filepath.Join(corpusDir, project, "crds")) {
		var sch openapi3.Schema // checks it is a schema kin-openapi reads
		if err := json.Unmarshal(v.Schema, &sch); err != nil {
			t.Fatal(err)
		}
		out[v.Key] = v.Schema
	}
	return out
}

// mutate changes one random place of obj: a value of another type, a null,
// an empty or long value, a removed or duplicated entry.
func mutate(rng *rand.Rand, obj map[string]any) {
	var spots []func(any)
	var walk func(x any, set func(any), del func())
	walk = func(x any, set func(any), del func()) {
		spots = append(spots, func(v any) {
			if v == nil && del != nil && rng.IntN(2) == 0 {
				del()
				return
			}
			set(v)
		})
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if isMetaField(k) {
					continue
				}
				walk(v, func(nv any) { x[k] = nv }, func() { delete(x, k) })
			}
		case []any:
			for i, v := range x {
				walk(v, func(nv any) { x[i] = nv }, nil)
			}
		}
	}
	walk(obj, func(any) {}, nil)
	if len(spots) <= 1 {
		return
	}
	long := strings.Repeat("x", 300)
	values := []any{nil, "", "text", "UPPER_case", long, int64(0), int64(-1), int64(70000), int64(1) << 40,
		1.5, float64(3), true, false, map[string]any{}, []any{}, []any{"a", "a"}, map[string]any{"zz": int64(1)},
		"2024-01-02T03:04:05Z", "10.0.0.1", "50%"}
	spots[1+rng.IntN(len(spots)-1)](deepCopy(values[rng.IntN(len(values))]))
}

// addDeclared sets a field the schema declares but obj lacks, at a random
// depth, to a random value (often one of its enum values or its default).
func addDeclared(rng *rand.Rand, obj map[string]any, root *node) {
	type spot struct {
		m    map[string]any
		name string
		n    *node
	}
	var spots []spot
	var walk func(x any, n *node)
	walk = func(x any, n *node) {
		if n == nil {
			return
		}
		switch x := x.(type) {
		case map[string]any:
			for _, name := range n.propNames {
				if isMetaField(name) && n == root {
					continue
				}
				if v, ok := x[name]; ok {
					walk(v, n.props[name])
				} else {
					spots = append(spots, spot{x, name, n.props[name]})
				}
			}
			if n.additional != nil {
				for k, v := range x {
					if _, ok := n.props[k]; !ok {
						walk(v, n.additional)
					}
				}
			}
		case []any:
			for _, v := range x {
				walk(v, n.items)
			}
		}
	}
	walk(obj, root)
	if len(spots) == 0 {
		return
	}
	sp := spots[rng.IntN(len(spots))]
	var v any
	switch {
	case len(sp.n.enum) > 0 && rng.IntN(2) == 0:
		v = sp.n.enum[rng.IntN(len(sp.n.enum))]
	case sp.n.hasDefault && rng.IntN(2) == 0:
		v = sp.n.def
	case sp.n.types&tObject != 0 && rng.IntN(2) == 0:
		v = map[string]any{}
	case sp.n.types&tArray != 0 && rng.IntN(2) == 0:
		v = []any{map[string]any{}, "a", int64(1)}[rng.IntN(3):]
	default:
		values := []any{nil, "", "text", strings.Repeat("y", 70), int64(0), int64(-5), int64(3), 2.5, true,
			map[string]any{}, []any{}, "1.2.3.4", "1h", "example.com", "abc-123"}
		v = values[rng.IntN(len(values))]
	}
	sp.m[sp.name] = deepCopy(v)
}
