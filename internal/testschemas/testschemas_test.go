package testschemas_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// TestFixturesLoad loads the fixtures as a schema directory: each must be
// a valid file, and the variants must mean what their options say.
func TestFixturesLoad(t *testing.T) {
	tests := map[string]struct {
		files map[string]string
		check func(t *testing.T, reg *schemas.Registry)
	}{
		"stable files": {
			files: map[string]string{"tools.yaml": testschemas.Tools, "things.yaml": testschemas.Things, "gadgets.yaml": testschemas.Gadgets(testschemas.GadgetOptions{})},
			check: func(t *testing.T, reg *schemas.Registry) {
				for _, want := range []struct{ group, version, plural string }{
					{"tools.example.com", "v1", "hammers"}, {"things.example.com", "v1alpha1", "things"}, {"gadgets.example.com", "v1", "gadgets"},
				} {
					if reg.Lookup(want.group, want.version, want.plural) == nil {
						t.Errorf("%s/%s %s not served", want.group, want.version, want.plural)
					}
				}
			},
		},
		"two versions, allowBreaking, more properties": {
			files: map[string]string{
				"v1.yaml": testschemas.Gadgets(testschemas.GadgetOptions{Resource: "{storage: true}", XSpecd: ", allowBreaking: true",
					Props: []string{testschemas.SizeProp, testschemas.ColorProp}}),
				"v1beta1.yaml": testschemas.Gadgets(testschemas.GadgetOptions{Version: "v1beta1", Resource: "{deprecated: true}"}),
			},
			check: func(t *testing.T, reg *schemas.Registry) {
				res := reg.Group("gadgets.example.com").Resource("gadgets")
				if res.StorageVersion != "v1" || !res.Version("v1beta1").Deprecated {
					t.Errorf("storage %s, v1beta1 deprecated %v", res.StorageVersion, res.Version("v1beta1").Deprecated)
				}
				if !reg.GroupVersion("gadgets.example.com", "v1").AllowBreaking {
					t.Error("v1 does not allow breaking changes")
				}
				if _, ok := res.Version("v1").OpenAPI.Properties["spec"].Value.Properties["color"]; !ok {
					t.Error("v1 has no spec.color")
				}
			},
		},
		"another kind": {
			files: map[string]string{"gizmos.yaml": testschemas.Gadgets(testschemas.GadgetOptions{Kind: "Gizmo", Version: "v2"})},
			check: func(t *testing.T, reg *schemas.Registry) {
				if rv := reg.Lookup("gizmos.example.com", "v2", "gizmos"); rv == nil || rv.Resource.Kind != "Gizmo" {
					t.Errorf("gizmos.example.com/v2 gizmos: %v", rv)
				}
			},
		},
		"gizmos stored in v1": {files: files(testschemas.Gizmos("g1.example.com", "v1")), check: gizmosStoredIn("g1.example.com", "v1")},
		"gizmos stored in v2": {files: files(testschemas.Gizmos("g2.example.com", "v2")), check: gizmosStoredIn("g2.example.com", "v2")},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for n, data := range tt.files {
				fsys[n] = &fstest.MapFile{Data: []byte(data)}
			}
			reg, err := schemas.LoadFS(fsys)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, reg)
		})
	}
}

func files(fsys fstest.MapFS) map[string]string {
	out := map[string]string{}
	for name, f := range fsys {
		out[name] = string(f.Data)
	}
	return out
}

// gizmosStoredIn checks the Gizmo files of group: stored in storage, the
// other version declaring the rename, each with its own spelling.
func gizmosStoredIn(group, storage string) func(*testing.T, *schemas.Registry) {
	return func(t *testing.T, reg *schemas.Registry) {
		res := reg.Group(group).Resource("gizmos")
		if res.StorageVersion != storage {
			t.Errorf("storage version %s, want %s", res.StorageVersion, storage)
		}
		for _, v := range []struct{ version, prop string }{{"v1", "colour"}, {"v2", "label"}} {
			rv := res.Version(v.version)
			if _, ok := rv.OpenAPI.Properties["spec"].Value.Properties[v.prop]; !ok {
				t.Errorf("%s has no spec.%s", v.version, v.prop)
			}
			if hasRules := rv.ConversionRules != nil; hasRules == (v.version == storage) {
				t.Errorf("%s declares conversion rules: %v", v.version, hasRules)
			}
		}
	}
}

// TestSameAsInline pins the rendering of the default Gadget file to the
// text the tests type inline today, so that switching them changes
// nothing.
func TestSameAsInline(t *testing.T) {
	const inline = `openapi: 3.0.3
info: {title: Gadgets, version: v1}
x-specd: {group: gadgets.example.com}
components:
  schemas:
    Gadget:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
            size: {type: integer}
`
	if got := testschemas.Gadgets(testschemas.GadgetOptions{}); got != inline {
		t.Errorf("Gadgets() =\n%s\nwant\n%s", got, inline)
	}
	if !strings.Contains(testschemas.Gadget("v1", "g1"), `"spec":{"size":1}`) {
		t.Error(testschemas.Gadget("v1", "g1"))
	}
}
