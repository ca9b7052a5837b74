package schemas_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// gadgetsV1 is the file these tests leave alone; they edit Tools with
// editedTools.
var gadgetsV1 = testschemas.Gadgets(testschemas.GadgetOptions{})

// editedTools is the Tools file with a description for spec.weight: a
// change to its declaration, not to what it accepts.
func editedTools(description string) string {
	return strings.Replace(testschemas.Tools, "weight: {type: integer}", "weight: {type: integer, description: "+description+"}", 1)
}

func writeSchema(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lookup(t *testing.T, reg *schemas.Registry, group, plural string) *schemas.ResourceVersion {
	t.Helper()
	rv := reg.Lookup(group, "v1", plural)
	if rv == nil {
		t.Fatalf("%s.%s not served", plural, group)
	}
	return rv
}

func TestLoaderReusesUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "gadgets/v1.yaml", gadgetsV1)
	writeSchema(t, dir, "tools.yaml", testschemas.Tools)
	l := schemas.NewLoader(dir)
	first, digests, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(digests) != 2 {
		t.Fatalf("digests: %v", digests)
	}
	writeSchema(t, dir, "tools.yaml", editedTools("changed"))
	second, digests2, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	gadgets := filepath.Join(dir, "gadgets", "v1.yaml")
	tools := filepath.Join(dir, "tools.yaml")
	if digests[gadgets] != digests2[gadgets] || digests[tools] == digests2[tools] {
		t.Errorf("digests before %v, after %v", digests, digests2)
	}
	g1, g2 := lookup(t, first, "gadgets.example.com", "gadgets"), lookup(t, second, "gadgets.example.com", "gadgets")
	if g1.Schema != g2.Schema {
		t.Error("the unchanged file was compiled again")
	}
	// The unchanged group is the first load's, as it was: nothing
	// changes a group once assembled.
	if first.Group("gadgets.example.com") != second.Group("gadgets.example.com") {
		t.Error("the unchanged group was assembled again")
	}
	if g1.Resource.Versions[0] != g1 {
		t.Error("the first registry's resource no longer links to its own version")
	}
	h1, h2 := lookup(t, first, "tools.example.com", "hammers"), lookup(t, second, "tools.example.com", "hammers")
	if h1.Schema == h2.Schema || h1.Resource == h2.Resource {
		t.Error("the changed file was not compiled and assembled again")
	}
	if h1.Resource.Versions[0] != h1 {
		t.Error("the first registry's changed resource no longer links to its own version")
	}
}

func TestLoaderMatchesLoad(t *testing.T) {
	dir := filepath.Join("..", "examples", "schemas")
	want, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := schemas.NewLoader(dir)
	for range 2 { // a fresh parse, then one from the cache
		got, _, err := l.Load()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(describe(want), describe(got), cmpopts.IgnoreUnexported(schemas.ResourceVersion{})); diff != "" {
			t.Errorf("Loader.Load differs from Load (-Load +Loader):\n%s", diff)
		}
	}
}

// describe is what a registry serves, in a form cmp can compare: each
// resource with its versions, without the links between them and the
// compiled schemas.
func describe(reg *schemas.Registry) []any {
	var out []any
	for _, g := range reg.Groups() {
		for _, res := range g.Resources {
			r := *res
			r.Versions = nil
			out = append(out, r)
			for _, rv := range res.Versions {
				cp := *rv
				cp.Resource, cp.Schema, cp.OpenAPI = nil, nil, nil
				out = append(out, cp)
			}
		}
	}
	return out
}

func TestLoaderReportsProblemsEveryTime(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "gadgets.yaml", gadgetsV1)
	writeSchema(t, dir, "broken.yaml", "openapi: 3.0.3\ninfo: [not, a, map\n")
	l := schemas.NewLoader(dir)
	for i := range 2 {
		_, digests, err := l.Load()
		var le *schemas.LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 || !strings.HasSuffix(le.Problems[0].File, "broken.yaml") {
			t.Fatalf("load %d: %v", i, err)
		}
		if len(digests) != 2 {
			t.Errorf("load %d: digests %v", i, digests)
		}
	}
	if err := os.Remove(filepath.Join(dir, "broken.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Load(); err != nil {
		t.Fatalf("after the fix: %v", err)
	}
}

// TestLoaderStampsDigests: a resource's declaration is the same after a
// reload that changed another file only, and after one that rewrote its
// file with the same bytes; Load and a Loader stamp alike.
func TestLoaderStampsDigests(t *testing.T) {
	dir := t.TempDir()
	writeSchema(t, dir, "gadgets.yaml", gadgetsV1)
	writeSchema(t, dir, "tools.yaml", testschemas.Tools)
	l := schemas.NewLoader(dir)
	before, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	writeSchema(t, dir, "gadgets.yaml", gadgetsV1)
	writeSchema(t, dir, "tools.yaml", editedTools("edited"))
	after, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	gadgets := func(reg *schemas.Registry) *schemas.Resource { return reg.Resource("gadgets.gadgets.example.com") }
	hammers := func(reg *schemas.Registry) *schemas.Resource { return reg.Resource("hammers.tools.example.com") }
	if !schemas.SameDeclaration(gadgets(before), gadgets(after)) || !schemas.SameDeclaration(gadgets(after), gadgets(fresh)) {
		t.Error("gadgets, whose file did not change, is declared differently")
	}
	if schemas.SameDeclaration(hammers(before), hammers(after)) || !schemas.SameDeclaration(hammers(after), hammers(fresh)) {
		t.Error("hammers, whose file changed, is declared the same")
	}
}
