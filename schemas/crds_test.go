package schemas

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/getkin/kin-openapi/openapi3"
)

// crd is the part of an apiextensions.k8s.io/v1 CustomResourceDefinition
// that a specd schema file carries.
type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind       string   `json:"kind"`
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name               string  `json:"name"`
			Storage            bool    `json:"storage"`
			Served             bool    `json:"served"`
			Deprecated         bool    `json:"deprecated"`
			DeprecationWarning *string `json:"deprecationWarning"`
			Schema             struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
			Subresources *struct {
				Status map[string]any `json:"status"`
			} `json:"subresources"`
			AdditionalPrinterColumns []map[string]any `json:"additionalPrinterColumns"`
			SelectableFields         []map[string]any `json:"selectableFields"`
		} `json:"versions"`
	} `json:"spec"`
}

// crdCorpus is shared/crds beside the repository (CI has it there too).
func crdCorpus(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "..", "shared", "crds")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("the CRD corpus must be at %s: %v", dir, err)
	}
	return dir
}

// TestLoadCRDCorpus wraps every version of every CRD of the corpus into
// specd schema files, one per group version, and loads each project.
func TestLoadCRDCorpus(t *testing.T) {
	corpus := crdCorpus(t)
	projects, err := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	if err != nil || len(projects) == 0 {
		t.Fatalf("no projects in %s (%v)", corpus, err)
	}
	totalCRDs, totalVersions := 0, 0
	for _, p := range projects {
		project := filepath.Base(filepath.Dir(p))
		crds := readCRDs(t, p)
		totalCRDs += len(crds)
		for _, c := range crds {
			totalVersions += len(c.Spec.Versions)
		}
		t.Run(project, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeSpecdFiles(t, dir, crds)
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

func readCRDs(t testing.TB, dir string) []*crd {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var out []*crd
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var c crd
			if err := yaml.Unmarshal(doc, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if c.Kind == "CustomResourceDefinition" {
				out = append(out, &c)
			}
		}
	}
	return out
}

// writeSpecdFiles writes one specd schema file per group version of crds,
// as YAML, and every third one as JSON.
func writeSpecdFiles(t testing.TB, dir string, crds []*crd) {
	t.Helper()
	docs := map[[2]string]map[string]any{}
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			key := [2]string{c.Spec.Group, v.Name}
			if docs[key] == nil {
				docs[key] = map[string]any{
					"openapi":    "3.0.3",
					"info":       map[string]any{"title": c.Spec.Group, "version": v.Name},
					"x-specd":    map[string]any{"group": c.Spec.Group},
					"components": map[string]any{"schemas": map[string]any{}},
				}
			}
			ext := map[string]any{
				"kind":     c.Spec.Names.Kind,
				"plural":   c.Spec.Names.Plural,
				"scope":    c.Spec.Scope,
				"storage":  v.Storage,
				"singular": c.Spec.Names.Singular,
				"served":   v.Served,
			}
			if v.Deprecated {
				ext["deprecated"] = true
			}
			if v.DeprecationWarning != nil {
				ext["deprecationWarning"] = *v.DeprecationWarning
			}
			if len(c.Spec.Names.ShortNames) > 0 {
				ext["shortNames"] = c.Spec.Names.ShortNames
			}
			if len(c.Spec.Names.Categories) > 0 {
				ext["categories"] = c.Spec.Names.Categories
			}
			if v.Subresources != nil && v.Subresources.Status != nil {
				ext["subresources"] = map[string]any{"status": map[string]any{}}
			}
			if len(v.AdditionalPrinterColumns) > 0 {
				ext["printerColumns"] = v.AdditionalPrinterColumns
			}
			if len(v.SelectableFields) > 0 {
				ext["selectableFields"] = v.SelectableFields
			}
			schema := v.Schema.OpenAPIV3Schema
			if schema == nil {
				schema = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
			}
			schema["x-specd-resource"] = ext
			docs[key]["components"].(map[string]any)["schemas"].(map[string]any)[c.Spec.Names.Kind] = schema
		}
	}
	keys := make([][2]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	for i, k := range keys {
		var data []byte
		var err error
		name := filepath.Join(dir, k[0], k[1])
		if i%3 != 2 {
			data, err = yaml.Marshal(docs[k])
			name += ".yaml"
		} else {
			data, err = json.MarshalIndent(docs[k], "", "  ")
			name += ".json"
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkAgainstCRDs compares the registry with the CRDs it came from.
func checkAgainstCRDs(t *testing.T, reg *Registry, crds []*crd) {
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
	corpus := crdCorpus(b)
	projects, _ := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	var dirs []string
	for _, p := range projects {
		dir := filepath.Join(b.TempDir(), filepath.Base(filepath.Dir(p)))
		writeSpecdFiles(b, dir, readCRDs(b, p))
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
