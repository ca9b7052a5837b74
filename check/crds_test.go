package check

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crd is the part of a CustomResourceDefinition a specd schema file carries.
type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name    string `json:"name"`
			Storage bool   `json:"storage"`
			Schema  struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// crdCorpus is ../shared/crds beside the repository.
func crdCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "crds")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skipf("no CRD corpus at %s: %v", dir, err)
	}
	return dir
}

func readCRDs(t *testing.T, dir string) []*crd {
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

// writeSpecdFiles writes one specd schema file per group version of crds.
func writeSpecdFiles(t *testing.T, dir string, crds []*crd) {
	t.Helper()
	docs := map[string]map[string]any{}
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			key := filepath.Join(c.Spec.Group, v.Name+".yaml")
			if docs[key] == nil {
				docs[key] = map[string]any{
					"openapi":    "3.0.3",
					"info":       map[string]any{"title": c.Spec.Group, "version": v.Name},
					"x-specd":    map[string]any{"group": c.Spec.Group},
					"components": map[string]any{"schemas": map[string]any{}},
				}
			}
			schema := v.Schema.OpenAPIV3Schema
			if schema == nil {
				schema = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
			}
			schema["x-specd-resource"] = map[string]any{
				"kind": c.Spec.Names.Kind, "plural": c.Spec.Names.Plural,
				"scope": c.Spec.Scope, "storage": v.Storage,
			}
			docs[key]["components"].(map[string]any)["schemas"].(map[string]any)[c.Spec.Names.Kind] = schema
		}
	}
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		data, err := yaml.Marshal(docs[k])
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, k)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
