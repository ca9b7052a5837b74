package schemas

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadReportsEverything: problems in several files, found by
// different checks, come back together in one LoadError.
func TestLoadReportsEverything(t *testing.T) {
	files := map[string]string{
		"broken.yaml":   "openapi: [\n",
		"shop/v1.yaml":  gv("shop.example.com", "v1", widget("Widget", "{storage: true, shortNames: [w], printerColumns: [{name: X, type: text, jsonPath: .spec.color}]}")),
		"shop/v2.yaml":  gv("shop.example.com", "v2", widget("Widget", "{scope: Cluster, shortNames: [w]}")+widget("Gizmo", "{plural: widgets, shortNames: [w]}")),
		"shop/z.json":   gv("shop.example.com", "v1", widget("Gadget", "{}")),
		"other/v1.yaml": gv("other_example", "v1", widget("lower", "{}")),
		"other/v2.yaml": gv("other.example.com", "version2", widget("Thing", "{}")),
	}
	matchProblems(t, loadProblems(t, files), []want{
		{"broken.yaml", "", "invalid YAML"},
		{"other/v1.yaml", "/x-specd/group", "other_example"},
		{"other/v1.yaml", "/x-specd/group", "at least one dot"},
		{"other/v1.yaml", "/components/schemas/lower/x-specd-resource", "UpperCamelCase"},
		{"other/v2.yaml", "/info/version", `version "version2"`},
		{"shop/z.json", "/info/version", "already declared in shop/v1.yaml"},
		{"shop/v1.yaml", sx + "/printerColumns/0/type", `type "text"`},
		{"shop/v2.yaml", sx + "/scope", "has scope Cluster in version v2 but Namespaced"},
		{"shop/v2.yaml", "/components/schemas/Gizmo/x-specd-resource/plural", `plural "widgets" is already used`},
		{"shop/v2.yaml", "/components/schemas/Gizmo/x-specd-resource/shortNames/0", `short name "w" is already used`},
	})
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shop/v1.yaml", gv("shop.example.com", "v1", widget("Widget", "{}")))
	write("shop/README.md", "not a schema")
	write(".hidden/v1.yaml", "not: [loaded")
	write("shop/.v1.yaml.swp", "not: [loaded")
	// A ConfigMap volume: files are links through ..data to a hidden folder.
	write("..2026_11_21/cm.yaml", gv("cm.example.com", "v1", widget("Widget", "{}")))
	if err := os.Symlink("..2026_11_21", filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..data", "cm.yaml"), filepath.Join(dir, "cm.yaml")); err != nil {
		t.Fatal(err)
	}
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(reg.Groups()); got != 2 || reg.Lookup("cm.example.com", "v1", "widgets") == nil {
		t.Fatalf("groups: %v", summary(reg))
	}
	if got, want := reg.GroupVersion("shop.example.com", "v1").File, filepath.Join(dir, "shop", "v1.yaml"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}

	write("shop/v2.yaml", "openapi: [\n")
	_, err = Load(dir)
	var le *LoadError
	if !errors.As(err, &le) || len(le.Problems) != 1 || le.Problems[0].File != filepath.Join(dir, "shop", "v2.yaml") {
		t.Fatalf("Load = %v, want one problem in shop/v2.yaml", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "schemas: 1 problem(s)\n  "+filepath.Join(dir, "shop", "v2.yaml")+": invalid YAML") {
		t.Errorf("Error() = %q", msg)
	}

	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, ErrNoDir) {
		t.Errorf("Load(missing) = %v, want ErrNoDir", err)
	}
	empty, err := Load(t.TempDir())
	if err != nil || len(empty.Groups()) != 0 {
		t.Errorf("Load(empty dir) = %v, %v; want an empty registry", empty, err)
	}
}

// TestLoadOddFiles: files that are far from a schema file are reported,
// never a panic.
func TestLoadOddFiles(t *testing.T) {
	odd := map[string]string{
		"list.yaml":         "- a\n- b\n",
		"scalar.yaml":       "hello\n",
		"null.json":         "null",
		"only-openapi.yaml": "openapi: 3.0.3\n",
		"specd-string.yaml": "openapi: 3.0.3\ninfo: {title: t, version: v1}\nx-specd: shop.example.com\n",
		"null-schemas.yaml": "openapi: 3.0.3\ninfo: {title: t, version: v1}\nx-specd: {group: a.example.com}\ncomponents: {schemas: null}\n",
		"null-schema.yaml":  "openapi: 3.0.3\ninfo: {title: t, version: v1}\nx-specd: {group: a.example.com}\ncomponents: {schemas: {Widget: null}}\n",
		"binary.yaml":       "\x00\x01\x02",
		"tabs.yaml":         "openapi: 3.0.3\n\tinfo: {}\n",
		"deep-ref.yaml": gv("a.example.com", "v1", `
Widget:
  type: object
  x-specd-resource: {selectableFields: [{jsonPath: .spec.x.y}], printerColumns: [{name: N, type: string, jsonPath: .spec.x}]}
  properties:
    spec: {$ref: '#/components/schemas/Spec/properties/inner'}
Spec: {type: object, properties: {inner: {type: object, properties: {x: {type: object, additionalProperties: {type: string}}}}}}
`),
	}
	for name, data := range odd {
		t.Run(name, func(t *testing.T) {
			reg, err := LoadFS(mapFS(map[string]string{name: data}))
			var le *LoadError
			if name == "deep-ref.yaml" {
				if err != nil || reg.Lookup("a.example.com", "v1", "widgets") == nil {
					t.Fatalf("LoadFS = %v", err)
				}
				return
			}
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("LoadFS = %v, want problems", err)
			}
			for _, p := range le.Problems {
				if p.File != name || p.Message == "" {
					t.Errorf("problem %+v", p)
				}
			}
		})
	}
}
