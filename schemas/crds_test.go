package schemas

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/internal/crdcorpus"
)

// TestLoadCRDCorpus wraps every version of every CRD of the corpus into
// specd schema files, one per group version, and loads each project.
func TestLoadCRDCorpus(t *testing.T) {
	corpus := crdcorpus.Dir(t)
	projects, err := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	if err != nil || len(projects) == 0 {
		t.Fatalf("no projects in %s (%v)", corpus, err)
	}
	totalCRDs, totalVersions := 0, 0
	for _, p := range projects {
		project := filepath.Base(filepath.Dir(p))
		crds := crdcorpus.Read(t, p)
		totalCRDs += len(crds)
		for _, c := range crds {
			totalVersions += len(c.Spec.Versions)
		}
		t.Run(project, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			crdcorpus.WriteSpecdFiles(t, dir, crds)
			reg, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstCRDs(t, reg, crds)
			if project == "prometheus-operator" {
				checkEqualsEnum(t, dir, reg)
			}
		})
	}
	if totalCRDs != 135 || totalVersions != 193 {
		t.Errorf("corpus has %d CRDs with %d versions, README says 135 and 193", totalCRDs, totalVersions)
	}
}

// TestLoadCRDCorpusFiles loads every project's CRD files of the corpus as
// they are published, as CRD files in a schema directory, and checks the
// registry against the CRDs.
func TestLoadCRDCorpusFiles(t *testing.T) {
	projects, err := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	if err != nil || len(projects) != 11 {
		t.Fatalf("want 11 projects in the corpus, have %d (%v)", len(projects), err)
	}
	crdCount := 0
	for _, p := range projects {
		project := filepath.Base(filepath.Dir(p))
		crds := crdcorpus.Read(t, p)
		crdCount += len(crds)
		t.Run(project, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(p)); err != nil {
				t.Fatal(err)
			}
			writeWebhookReplacements(t, dir, crds)
			reg, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstCRDs(t, reg, crds)
			checkCRDOnly(t, reg, crds)
			checkCorpusExamples(t, filepath.Dir(p), reg)
		})
	}
	if crdCount != 135 {
		t.Errorf("corpus has %d CRDs, README says 135", crdCount)
	}
}

// writeWebhookReplacements writes, beside the CRD files, specd conversion
// rules for every CRD that names a conversion webhook, as a user would:
// empty rule lists, so each version converts field for field. The CRD
// files stay as they are; without these rules they are refused.
func writeWebhookReplacements(t testing.TB, dir string, crds []*crdcorpus.CRD) {
	t.Helper()
	var docs []string
	for _, c := range crds {
		if c.Spec.Conversion == nil || c.Spec.Conversion.Strategy != "Webhook" || len(c.Spec.Versions) < 2 {
			continue
		}
		doc := fmt.Sprintf("apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata:\n  name: %s.%s\nspec:\n  versions:\n",
			c.Spec.Names.Plural, c.Spec.Group)
		for _, v := range c.Spec.Versions {
			if !v.Storage {
				doc += fmt.Sprintf("    %s: []\n", v.Name)
			}
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return
	}
	data := []byte("---\n" + strings.Join(docs, "---\n"))
	if err := os.WriteFile(filepath.Join(dir, "specd-conversion.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkCRDOnly checks what only a CRD file carries: the CRD's name and
// list kind, and every name of the resource.
func checkCRDOnly(t *testing.T, reg *Registry, crds []*crdcorpus.CRD) {
	t.Helper()
	for _, c := range crds {
		res := reg.Resource(c.Spec.Names.Plural + "." + c.Spec.Group)
		if res == nil {
			continue // reported by checkAgainstCRDs
		}
		listKind := c.Spec.Names.Kind + "List"
		if c.Spec.Names.ListKind != "" {
			listKind = c.Spec.Names.ListKind
		}
		got := fmt.Sprintf("%s %s %v %v", res.CRD, res.ListKind, res.ShortNames, res.Categories)
		want := fmt.Sprintf("%s.%s %s %v %v", c.Spec.Names.Plural, c.Spec.Group, listKind, c.Spec.Names.ShortNames, c.Spec.Names.Categories)
		if got != want {
			t.Errorf("%s: got %q, want %q", res.GroupResource(), got, want)
		}
	}
}

// checkAgainstCRDs compares the registry with the CRDs it came from.
func checkAgainstCRDs(t *testing.T, reg *Registry, crds []*crdcorpus.CRD) {
	t.Helper()
	for _, c := range crds {
		g := reg.Group(c.Spec.Group)
		if g == nil {
			t.Errorf("group %s missing", c.Spec.Group)
			continue
		}
		res := g.Resource(c.Spec.Names.Plural)
		if res == nil {
			t.Errorf("%s.%s missing", c.Spec.Names.Plural, c.Spec.Group)
			continue
		}
		got := fmt.Sprintf("%s %s %s %s", res.Kind, res.Singular, res.Scope, res.StorageVersion)
		var storage string
		for _, v := range c.Spec.Versions {
			if v.Storage {
				storage = v.Name
			}
		}
		if want := fmt.Sprintf("%s %s %s %s", c.Spec.Names.Kind, c.Spec.Names.Singular, c.Spec.Scope, storage); got != want {
			t.Errorf("%s: got %q, want %q", res.GroupResource(), got, want)
		}
		if len(res.Versions) != len(c.Spec.Versions) {
			t.Errorf("%s: %d versions, want %d", res.GroupResource(), len(res.Versions), len(c.Spec.Versions))
		}
		for _, v := range c.Spec.Versions {
			rv := res.Version(v.Name)
			if rv == nil || rv.Schema == nil {
				t.Errorf("%s %s: missing or not compiled", res.GroupResource(), v.Name)
				continue
			}
			if len(rv.PrinterColumns) != len(v.AdditionalPrinterColumns) || len(rv.SelectableFields) != len(v.SelectableFields) {
				t.Errorf("%s %s: %d columns and %d selectable fields, want %d and %d", res.GroupResource(), v.Name,
					len(rv.PrinterColumns), len(rv.SelectableFields), len(v.AdditionalPrinterColumns), len(v.SelectableFields))
			}
			if rv.Served() != v.Served || rv.Deprecated != v.Deprecated ||
				(v.DeprecationWarning != nil && rv.DeprecationWarning != *v.DeprecationWarning) ||
				(v.Deprecated && rv.DeprecationWarning == "") {
				t.Errorf("%s %s: served %v deprecated %v warning %q", res.GroupResource(), v.Name, rv.Served(), rv.Deprecated, rv.DeprecationWarning)
			}
			if rv.StatusSubresource != (v.Subresources != nil && v.Subresources.Status != nil) {
				t.Errorf("%s %s: status subresource %v", res.GroupResource(), v.Name, rv.StatusSubresource)
			}
		}
	}
}

// checkEqualsEnum: prometheus-operator's alertmanagerconfigs has an enum
// entry "=" that YAML 1.1 readers take for a special tag; it must come
// through as the string "=".
func checkEqualsEnum(t *testing.T, dir string, reg *Registry) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "monitoring.coreos.com", "v1alpha1.yaml"))
	if err != nil || !bytes.Contains(data, []byte("- =\n")) {
		t.Fatalf("the YAML file for monitoring.coreos.com/v1alpha1 should have a plain enum entry =: %v", err)
	}
	res := reg.Group("monitoring.coreos.com").Resource("alertmanagerconfigs")
	if res == nil {
		t.Fatal("alertmanagerconfigs missing")
	}
	found := false
	seen := map[*openapi3.Schema]bool{}
	var walk func(s *openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, e := range s.Enum {
			if e == "=" {
				found = true
			}
		}
		for _, c := range subSchemas(s) {
			walk(c.ref.Value)
		}
	}
	walk(res.Versions[0].OpenAPI)
	if !found {
		t.Error(`no enum value "=" in alertmanagerconfigs`)
	}
}

// BenchmarkLoadCRDs loads the whole CRD corpus as one directory per
// project (about 20 MB of schemas).
func BenchmarkLoadCRDs(b *testing.B) {
	corpus := crdcorpus.Dir(b)
	projects, _ := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	var dirs []string
	for _, p := range projects {
		dir := filepath.Join(b.TempDir(), filepath.Base(filepath.Dir(p)))
		crdcorpus.WriteSpecdFiles(b, dir, crdcorpus.Read(b, p))
		dirs = append(dirs, dir)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, dir := range dirs {
			if _, err := Load(dir); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLoadCRDFiles loads the whole CRD corpus from its CRD files,
// one directory per project, as BenchmarkLoadCRDs does from wrapped
// specd files.
func BenchmarkLoadCRDFiles(b *testing.B) {
	projects, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(b), "*", "crds"))
	var dirs []string
	for _, p := range projects {
		dir := filepath.Join(b.TempDir(), filepath.Base(filepath.Dir(p)))
		if err := os.CopyFS(dir, os.DirFS(p)); err != nil {
			b.Fatal(err)
		}
		writeWebhookReplacements(b, dir, crdcorpus.Read(b, p))
		dirs = append(dirs, dir)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, dir := range dirs {
			if _, err := Load(dir); err != nil {
				b.Fatal(err)
			}
		}
	}
}
