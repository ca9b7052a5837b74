package structural_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas/celrules"
	"github.com/specd-io/specd/schemas/structural"
)

// corpusExceptions are corpus objects kube-apiserver rejects for a reason
// this package does not check: ObjectMeta validation (done by the engine).
// Keyed by "<project>/<dir>/<file>#<doc>". CEL rules are evaluated here
// (package celrules), so no object is excused for one.
var corpusExceptions = map[string]string{}

type crdVersion struct {
	crd    string
	schema *structural.Schema
}

// loadCorpusCRDs compiles every CRD version of a project, keyed by
// "apiVersion/kind".
func loadCorpusCRDs(t *testing.T, corpusDir, project string) (map[string]crdVersion, int) {
	t.Helper()
	out := map[string]crdVersion{}
	versions := crdcorpus.VersionSchemas(t, filepath.Join(corpusDir, project, "crds"))
	for _, v := range versions {
		name := v.CRD + " " + v.Version
		var sch openapi3.Schema
		if err := json.Unmarshal(v.Schema, &sch); err != nil {
			t.Errorf("%s: unmarshal schema: %v", name, err)
			continue
		}
		s, errs := structural.Compile(&sch)
		if len(errs) > 0 {
			t.Errorf("%s: %d compile errors, first: %v", name, len(errs), errs[0])
			continue
		}
		rules, probs := celrules.Compile(&sch)
		if len(probs) > 0 {
			t.Errorf("%s: %d CEL rule problems, first: %v", name, len(probs), probs[0])
			continue
		}
		if rules != nil {
			s = s.WithRules(rules)
		}
		out[v.Key] = crdVersion{crd: name, schema: s}
	}
	return out, len(versions)
}

func TestCorpus(t *testing.T) {
	corpusDir := crdcorpus.Dir(t)
	projects, _ := filepath.Glob(filepath.Join(corpusDir, "*", "crds"))
	if len(projects) == 0 {
		t.Fatal("no projects in the CRD corpus")
	}
	versions, accepted, rejected, exact := 0, 0, 0, 0
	usedExceptions := map[string]bool{}
	for _, dir := range projects {
		project := filepath.Base(filepath.Dir(dir))
		t.Run(project, func(t *testing.T) {
			crds, n := loadCorpusCRDs(t, corpusDir, project)
			versions += n
			recorded := crdcorpus.RecordedErrors(t, filepath.Join(corpusDir, project))
			for _, sub := range []string{"examples", "invalid-examples", "rejected-examples"} {
				files, _ := filepath.Glob(filepath.Join(corpusDir, project, sub, "*.yaml"))
				for _, f := range files {
					for i, doc := range crdcorpus.YAMLDocs(t, f) {
						key := project + "/" + sub + "/" + filepath.Base(f) + "#" + structural.Itoa(i)
						var obj map[string]any
						if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
							t.Fatalf("%s: %v", key, err)
						}
						av, _ := obj["apiVersion"].(string)
						kind, _ := obj["kind"].(string)
						cv, ok := crds[av+"/"+kind]
						if !ok {
							t.Errorf("%s: no CRD for %s %s", key, av, kind)
							continue
						}
						cv.schema.Prune(obj)
						cv.schema.Default(obj)
						all, _ := cv.schema.ValidateRules(context.Background(), obj, nil, cv.schema.Validate(obj))
						errs := structural.ErrorStrings(all)
						if sub == "examples" {
							accepted++
							if len(errs) > 0 {
								t.Errorf("%s (%s): want accepted, got:\n%s", key, cv.crd, structural.JoinLines(errs))
							}
							continue
						}
						rejected++
						if reason, ok := corpusExceptions[key]; ok {
							usedExceptions[key] = true
							if len(errs) > 0 {
								t.Errorf("%s is listed as an exception (%s) but is rejected: %v", key, reason, errs)
							}
							continue
						}
						if len(errs) == 0 {
							t.Errorf("%s (%s): want rejected, got no errors", key, cv.crd)
							continue
						}
						if want, ok := crdcorpus.CELRefusals[key]; ok {
							usedExceptions[key] = true
							if got := structural.JoinLines(errs); got != want {
								t.Errorf("%s: got\n%s\nwant kube's CEL error\n%s", key, got, want)
							}
							continue
						}
						want := recorded[sub+"/"+filepath.Base(f)+"#"+structural.Itoa(i)]
						if len(want) == 0 {
							continue
						}
						got := make([]string, len(errs))
						for j, e := range errs {
							got[j] = e[strings.Index(e, " ")+1:]
						}
						sort.Strings(got)
						sort.Strings(want)
						exact++
						if structural.JoinLines(got) != structural.JoinLines(want) {
							t.Errorf("%s: errors differ from kube-apiserver's\ngot:\n%s\nwant:\n%s", key, structural.JoinLines(got), structural.JoinLines(want))
						}
					}
				}
			}
		})
	}
	for key := range crdcorpus.CELRefusals {
		if !usedExceptions[key] {
			t.Errorf("CEL refusal %s matched no corpus object", key)
		}
	}
	for key := range corpusExceptions {
		if !usedExceptions[key] {
			t.Errorf("exception %s matched no corpus object", key)
		}
	}
	t.Logf("%d CRD versions compiled, %d objects accepted, %d rejected (%d compared with kube-apiserver's recorded errors)",
		versions, accepted, rejected, exact)
	if exact != 7 {
		t.Errorf("compared %d rejected objects with their recorded errors, the corpus records 7", exact)
	}
	if versions != 193 {
		t.Errorf("compiled %d CRD versions, the corpus has 193", versions)
	}
}

// The prometheus-operator alertmanagerconfigs CRD has an unquoted "=" in an
// enum; Kubernetes (and sigs.k8s.io/yaml) read it as the string "=".
func TestCorpusEqualsSignEnum(t *testing.T) {
	crds, _ := loadCorpusCRDs(t, crdcorpus.Dir(t), "prometheus-operator")
	cv, ok := crds["monitoring.coreos.com/v1alpha1/AlertmanagerConfig"]
	if !ok {
		t.Fatal("AlertmanagerConfig v1alpha1 not in the corpus")
	}
	obj := func(op string) map[string]any {
		return structural.Object(t, `{"apiVersion":"monitoring.coreos.com/v1alpha1","kind":"AlertmanagerConfig","metadata":{"name":"a"},
			"spec":{"inhibitRules":[{"sourceMatch":[{"name":"severity","value":"critical","matchType":"`+op+`"}]}]}}`)
	}
	if errs := cv.schema.Validate(obj("=")); len(errs) > 0 {
		t.Errorf(`matchType "=": %v`, errs)
	}
	got := structural.JoinLines(structural.ErrorStrings(cv.schema.Validate(obj("=="))))
	want := `FieldValueNotSupported spec.inhibitRules[0].sourceMatch[0].matchType: Unsupported value: "==": supported values: "!=", "=", "=~", "!~"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
