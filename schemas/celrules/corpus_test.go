package celrules

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/internal/crdcorpus"
)

// Every rule of the corpus's CRDs compiles as a load would compile it:
// kube-apiserver accepted each of these CRDs, rules and costs included.
func TestCorpusRulesCompile(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	crdsWithRules, rules := 0, 0
	for _, dir := range dirs {
		for _, crd := range crdcorpus.Read(t, dir) {
			n := 0
			for _, v := range crd.Spec.Versions {
				n += compileCorpusVersion(t, crd.Spec.Names.Kind+" "+v.Name, v.Schema.OpenAPIV3Schema)
			}
			if n > 0 {
				crdsWithRules++
				rules += n
			}
		}
	}
	if crdsWithRules != 38 || rules != 152 {
		t.Errorf("compiled %d rules in %d CRDs; the corpus has 152 in 38", rules, crdsWithRules)
	}
}

// compileCorpusVersion compiles one version's schema and returns its
// number of rules.
func compileCorpusVersion(t *testing.T, name string, schema map[string]any) int {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s openapi3.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r, probs := Compile(&s)
	for _, p := range probs {
		t.Errorf("%s: %v", name, p)
	}
	return r.Count()
}

// BenchmarkCompileCorpus compiles the rules of every CRD version of the
// corpus, as a load of all of them does ("first"), and as a reload that
// changes none of them does ("again"): the CRD API parses a CRD again on
// every change of the object, its status included.
func BenchmarkCompileCorpus(b *testing.B) {
	var all []*openapi3.Schema
	dirs, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(b), "*", "crds"))
	for _, dir := range dirs {
		for _, crd := range crdcorpus.Read(b, dir) {
			for _, v := range crd.Spec.Versions {
				data, _ := json.Marshal(v.Schema.OpenAPIV3Schema)
				var s openapi3.Schema
				if err := json.Unmarshal(data, &s); err != nil {
					b.Fatal(err)
				}
				all = append(all, &s)
			}
		}
	}
	benchCompile(b, all)
}
