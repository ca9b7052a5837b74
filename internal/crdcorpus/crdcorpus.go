// Package crdcorpus reads the corpus of real CustomResourceDefinitions in
// the repository's testdata/crds (so a fresh clone tests) and wraps them
// as specd schema files, for the tests of every package that checks its
// work against real-world schemas. A missing corpus fails the test: it is
// never skipped.
package crdcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// CRD is the part of an apiextensions.k8s.io/v1 CustomResourceDefinition
// that a specd schema file carries.
type CRD struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind       string   `json:"kind"`
			ListKind   string   `json:"listKind"`
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Scope      string `json:"scope"`
		Conversion *struct {
			Strategy string `json:"strategy"`
		} `json:"conversion"`
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
				Scale  map[string]any `json:"scale"`
			} `json:"subresources"`
			AdditionalPrinterColumns []map[string]any `json:"additionalPrinterColumns"`
			SelectableFields         []map[string]any `json:"selectableFields"`
		} `json:"versions"`
	} `json:"spec"`
}

// Dir is testdata/crds in the repository.
func Dir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "testdata", "crds")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("the CRD corpus must be at %s: %v", dir, err)
	}
	return dir
}

// Read returns the CRDs of the YAML files in dir.
func Read(t testing.TB, dir string) []*CRD {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var out []*CRD
	for _, f := range files {
		for _, doc := range YAMLDocs(t, f) {
			var c CRD
			if err := json.Unmarshal(doc, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if c.Kind == "CustomResourceDefinition" {
				out = append(out, &c)
			}
		}
	}
	return out
}

// YAMLDocs returns the documents of a multi-document YAML file as JSON,
// without the empty ones (only comments, or null).
func YAMLDocs(t testing.TB, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(bytes.TrimSpace(commentLine.ReplaceAll(doc, nil))) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if string(j) != "null" {
			out = append(out, j)
		}
	}
}

var commentLine = regexp.MustCompile(`(?m)^\s*#.*$`)

// VersionSchema is the openAPIV3Schema of one version of a CRD.
type VersionSchema struct {
	CRD     string // the CRD's metadata.name
	Version string
	// Key is "<group>/<version>/<kind>", apiVersion/kind.
	Key    string
	Schema json.RawMessage
}

// VersionSchemas returns the schema of every version of every CRD in the
// YAML files of dir, in file order.
func VersionSchemas(t testing.TB, dir string) []VersionSchema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRD files in %s (%v)", dir, err)
	}
	var out []VersionSchema
	for _, f := range files {
		for _, doc := range YAMLDocs(t, f) {
			out = append(out, versionSchemas(t, f, doc)...)
		}
	}
	return out
}

func versionSchemas(t testing.TB, file string, doc []byte) []VersionSchema {
	var crd struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Group    string                `json:"group"`
			Names    struct{ Kind string } `json:"names"`
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(doc, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := make([]VersionSchema, 0, len(crd.Spec.Versions))
	for _, v := range crd.Spec.Versions {
		out = append(out, VersionSchema{CRD: crd.Metadata.Name, Version: v.Name,
			Key: crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Kind, Schema: v.Schema.OpenAPIV3Schema})
	}
	return out
}

// WriteSpecdFiles writes one specd schema file per group version of crds,
// as YAML, and every third one as JSON.
func WriteSpecdFiles(t testing.TB, dir string, crds []*CRD) {
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

// CELRefusals are the errors kube-apiserver's CEL validator gives the
// corpus objects that only a rule refuses, as "<type> <field>: <detail>";
// the corpus does not record them (the projects' tests only expect a
// refusal). Keyed by "<project>/<dir>/<file>#<doc>".
var CELRefusals = map[string]string{
	"crossplane/invalid-examples/protection__usage__standalone-namespaced__ref-without-by-cross-namespace-invalid__usage.yaml#0":      `FieldValueInvalid spec: Invalid value: cross-namespace "spec.of" is not allowed without "spec.by" resource.`,
	"crossplane/invalid-examples/protection__usage__standalone-namespaced__selector-without-by-cross-namespace-invalid__usage.yaml#0": `FieldValueInvalid spec: Invalid value: cross-namespace "spec.of" is not allowed without "spec.by" resource.`,
}

// RecordedErrors reads the kube-apiserver errors that a project's
// SOURCE.txt records for its rejected examples, as "<field>: <detail>":
// "rejected-examples/<file>#<doc>" -> errors.
func RecordedErrors(t testing.TB, projectDir string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(projectDir, "SOURCE.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "rejected-examples/") {
			cur = strings.Fields(strings.TrimSpace(line))[0]
			continue
		}
		if m := recordedError.FindStringSubmatch(line); m != nil && cur != "" {
			key := cur + "#" + m[1]
			out[key] = append(out[key], m[2])
		}
	}
	return out
}

var recordedError = regexp.MustCompile(`^\s+error: doc (\d+) \([^)]*\): (.*)$`)

// repoRoot is the root of the specd repository: two folders up from this
// file.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("crdcorpus: cannot find its own source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
