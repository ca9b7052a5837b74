package schemas

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	kjson "sigs.k8s.io/json"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas/structural"
)

// checkCorpusExamples validates every example object of a corpus project
// with the schemas the registry compiled from the project's CRD files:
// the published examples must pass, and the invalid and rejected ones
// must get exactly the errors the CRD's schema gets when compiled on its
// own, which package structural's corpus test compares with the errors
// kube-apiserver recorded.
func checkCorpusExamples(t *testing.T, projectDir string, reg *Registry) {
	t.Helper()
	direct := directSchemas(t, filepath.Join(projectDir, "crds"))
	for _, sub := range []string{"examples", "invalid-examples", "rejected-examples"} {
		files, _ := filepath.Glob(filepath.Join(projectDir, sub, "*.yaml"))
		for _, f := range files {
			for i, doc := range crdcorpus.YAMLDocs(t, f) {
				key := fmt.Sprintf("%s/%s#%d", sub, filepath.Base(f), i)
				got, want := exampleErrors(t, reg, direct, doc)
				if sub == "examples" && got != "" {
					t.Errorf("%s: want accepted, got:\n%s", key, got)
				}
				if got != want {
					t.Errorf("%s: the CRD file's schema says\n%s\nthe CRD's schema alone says\n%s", key, got, want)
				}
			}
		}
	}
}

// exampleErrors prunes, defaults and validates a copy of an object with
// the registry's schema and with the directly compiled one.
func exampleErrors(t *testing.T, reg *Registry, direct map[string]*structural.Schema, doc []byte) (got, want string) {
	t.Helper()
	decode := func() map[string]any {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	obj := decode()
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	group, version, _ := strings.Cut(av, "/")
	var rv *ResourceVersion
	if g := reg.Group(group); g != nil {
		for _, res := range g.Resources {
			if res.Kind == kind {
				rv = res.Version(version)
			}
		}
	}
	d := direct[av+"/"+kind]
	if rv == nil || rv.Schema == nil || d == nil {
		t.Fatalf("no schema for %s %s", av, kind)
	}
	return validateWith(rv.Schema, obj), validateWith(d, decode())
}

func validateWith(s *structural.Schema, obj map[string]any) string {
	s.Prune(obj)
	s.Default(obj)
	var lines []string
	for _, e := range s.Validate(obj) {
		lines = append(lines, string(e.Type)+" "+e.Error())
	}
	return strings.Join(lines, "\n")
}

// directSchemas compiles each CRD version's schema of a folder on its own,
// by apiVersion/kind.
func directSchemas(t *testing.T, dir string) map[string]*structural.Schema {
	t.Helper()
	out := map[string]*structural.Schema{}
	for _, v := range crdcorpus.VersionSchemas(t, dir) {
		var sch openapi3.Schema
		if err := json.Unmarshal(v.Schema, &sch); err != nil {
			t.Fatal(err)
		}
		s, errs := structural.Compile(&sch)
		if len(errs) > 0 {
			t.Fatalf("%s %s: %v", v.CRD, v.Version, errs)
		}
		out[v.Key] = s
	}
	return out
}
