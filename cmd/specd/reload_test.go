package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// gadgetsFile is a group version of one resource; level is its version
// ("v1", "v1beta1", "v1alpha1"), root more x-specd fields, props the
// spec's properties.
func gadgetsFile(version, root, props string) string {
	return `openapi: 3.0.3
info: {title: Gadgets, version: ` + version + `}
x-specd: {group: gadgets.example.com` + root + `}
components:
  schemas:
    Gadget:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
` + props
}

const (
	sizeProp  = "            size: {type: integer}\n"
	colorProp = "            color: {type: string}\n"
)

// reloaderOn returns a started reloader of a directory holding files.
func reloaderOn(t *testing.T, cfg serveConfig, files map[string]string) (*reloader, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	cfg.Schemas = dir
	r := newReloader(cfg, quietLogger())
	if err := r.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if content == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReloadGate(t *testing.T) {
	tests := map[string]struct {
		cfg     serveConfig
		before  map[string]string
		after   map[string]string // "" removes the file
		stored  bool              // objects of the resource are stored
		refused string            // the refusal names it; "" when applied
	}{
		"a new optional field": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
		},
		"a removed field of a stable version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			refused: "field-removed",
		},
		"a removed field of a beta version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1beta1", "", sizeProp+colorProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1beta1", "", sizeProp)},
			refused: "field-removed",
		},
		"a removed field of an alpha version": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp)},
		},
		"a removed field with the file's annotation": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true", sizeProp)},
		},
		"a removed field with --allow-breaking": {
			cfg:    serveConfig{AllowBreaking: true},
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
		},
		"a changed type": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "", "            size: {type: string}\n")},
			refused: "type",
		},
		"a removed stable file": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:   map[string]string{"g.yaml": ""},
			refused: "resource-removed",
		},
		"a removed stable file that was annotated": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true", sizeProp)},
			after:  map[string]string{"g.yaml": ""},
		},
		"a removed alpha file with objects": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp)},
			after:  map[string]string{"g.yaml": ""},
			stored: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, dir := reloaderOn(t, tc.cfg, tc.before)
			r.objectsStored = func(context.Context, *schemas.Resource) (bool, error) { return tc.stored, nil }
			served := r.Registry()
			writeFiles(t, dir, tc.after)
			err := r.reload(context.Background(), "test")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (!errors.Is(err, errRefused) || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("reload: %v, want a refusal naming %q", err, tc.refused)
			case tc.refused != "" && r.Registry() != served:
				t.Fatal("a refused reload changed the served registry")
			case tc.refused == "" && r.Registry() == served:
				t.Fatal("an applied reload kept the served registry")
			}
			if got := r.status.check(); (got != nil) != (tc.refused != "") {
				t.Errorf("readiness check after the reload: %v", got)
			}
		})
	}
}

func TestReloadStorageVersionWithObjects(t *testing.T) {
	two := func(storageV1 bool) map[string]string {
		v1 := strings.Replace(gadgetsFile("v1", "", sizeProp), "x-specd-resource: {}", "x-specd-resource: {storage: "+map[bool]string{true: "true", false: "false"}[storageV1]+"}", 1)
		v2 := strings.Replace(gadgetsFile("v2", "", sizeProp), "x-specd-resource: {}", "x-specd-resource: {storage: "+map[bool]string{true: "false", false: "true"}[storageV1]+"}", 1)
		return map[string]string{"v1.yaml": v1, "v2.yaml": v2}
	}
	for _, stored := range []bool{false, true} {
		r, dir := reloaderOn(t, serveConfig{}, two(true))
		r.objectsStored = func(context.Context, *schemas.Resource) (bool, error) { return stored, nil }
		// v1, the storage version, goes; v2 (not deprecated, stable) stays
		// and becomes the storage version.
		writeFiles(t, dir, map[string]string{"v1.yaml": "", "v2.yaml": strings.Replace(gadgetsFile("v2", "", sizeProp), "x-specd-resource: {}", "x-specd-resource: {storage: true}", 1)})
		err := r.reload(context.Background(), "test")
		if !stored {
			// Removing v1 still breaks its clients: only the storage rule
			// is lifted when no object is stored.
			if err == nil || strings.Contains(err.Error(), "storage-version-removed") {
				t.Errorf("without objects: %v, want a refusal for version-removed only", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "storage-version-removed") {
			t.Errorf("with objects: %v, want a storage-version-removed refusal", err)
		}
	}
}

func TestReloadUnchangedAndBroken(t *testing.T) {
	r, dir := reloaderOn(t, serveConfig{}, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)})
	served := r.Registry()
	if err := r.reload(context.Background(), "test"); err != nil || r.Registry() != served {
		t.Fatalf("an unchanged directory: %v, registry kept %v", err, r.Registry() == served)
	}
	writeFiles(t, dir, map[string]string{"g.yaml": "openapi: [3"})
	err := r.reload(context.Background(), "test")
	var le *schemas.LoadError
	if !errors.As(err, &le) || r.Registry() != served {
		t.Fatalf("a broken file: %v", err)
	}
	if c := r.status.check(); c == nil || !strings.Contains(c.Error(), filepath.Join(dir, "g.yaml")) {
		t.Errorf("readiness check: %v, want the file named", c)
	}
	writeFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)})
	if err := r.reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	if c := r.status.check(); c != nil {
		t.Errorf("readiness check after the fix: %v", c)
	}
}

// TestConverterFollowsTheWorld: the converter of a resource is that of
// the world it came from, for the worlds retained.
func TestConverterFollowsTheWorld(t *testing.T) {
	r, dir := reloaderOn(t, serveConfig{}, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)})
	first := r.current.Load()
	res := first.reg.Group("gadgets.example.com").Resources[0]
	writeFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)})
	if err := r.reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	second := r.current.Load()
	if r.converterFor(res) != first.conv {
		t.Error("a resource of the replaced world converts with the new world's rules")
	}
	nres := second.reg.Group("gadgets.example.com").Resources[0]
	if r.converterFor(nres) != second.conv {
		t.Error("a resource of the served world does not convert with its rules")
	}
	added, changed, removed := diffResources(first, second)
	if len(added) != 0 || len(removed) != 0 || len(changed) != 1 || changed[0] != "gadgets.gadgets.example.com" {
		t.Errorf("diff: added %v changed %v removed %v", added, changed, removed)
	}
}
