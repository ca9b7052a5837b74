package schemas

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSchemaFormatDocExample loads the example of docs/schema-format.md,
// the one ```yaml block of the page.
func TestSchemaFormatDocExample(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "schema-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(string(page), "yaml")
	if len(blocks) != 1 {
		t.Fatalf("docs/schema-format.md has %d ```yaml blocks, want exactly one (the example)", len(blocks))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fleet.yaml"), []byte(blocks[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"motorpool.example.com/v1 depots kind=Depot list=DepotList singular=depot scope=Cluster short=[dep] categories=[motorpool] storage=true status=false columns=0 selectable=0",
		"motorpool.example.com/v1 vehicles kind=Vehicle list=VehicleList singular=vehicle scope=Namespaced short=[veh] categories=[motorpool] storage=true status=true columns=5 selectable=1",
	}
	if diff := cmp.Diff(want, summary(reg)); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	checkDocRules(t, reg.Lookup("motorpool.example.com", "v1", "vehicles"))
}

// checkDocRules checks the errors the page shows for the example's
// validation rules.
func checkDocRules(t *testing.T, rv *ResourceVersion) {
	t.Helper()
	car := func(plate string, seats int64) map[string]any {
		return map[string]any{"apiVersion": "motorpool.example.com/v1", "kind": "Vehicle", "metadata": map[string]any{"name": "herbie"},
			"spec": map[string]any{"plate": plate, "type": "car", "seats": seats}}
	}
	tests := []struct {
		name     string
		obj, old map[string]any
		want     string
	}{
		{"create with 12 seats", car("B-1", 12), nil, "spec: Invalid value: car B-1 has more than 9 seats"},
		{"create with 4 seats", car("B-1", 4), nil, ""},
		{"change the plate", car("B-2", 4), car("B-1", 4), "spec.plate: Forbidden: the plate cannot change"},
	}
	for _, tc := range tests {
		errs, _ := rv.Schema.ValidateRules(context.Background(), tc.obj, tc.old, nil)
		if got := errs.ToAggregate(); (got == nil && tc.want != "") || (got != nil && got.Error() != tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, got, tc.want)
		}
	}
}

// fencedBlocks returns the contents of the ```lang blocks of a markdown page.
func fencedBlocks(page, lang string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(page, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
		}
	}
	return blocks
}

// TestCRDDocExample: the ```yaml block of docs/crds.md is the file
// examples/crds/toys.example.com.yaml (which the page's examples serve),
// and it loads.
func TestCRDDocExample(t *testing.T) {
	root := repoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "crds.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(string(page), "yaml")
	file, err := os.ReadFile(filepath.Join(root, "examples", "crds", "toys.example.com.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 || blocks[0] != string(file) {
		t.Fatalf("docs/crds.md must show examples/crds/toys.example.com.yaml in its one ```yaml block (%d blocks)", len(blocks))
	}
	reg, err := Load(filepath.Join(root, "examples", "crds"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"toys.example.com/v1 puzzles kind=Puzzle list=PuzzleList singular=puzzle scope=Cluster short=[pz] categories=[toys] storage=true status=false columns=1 selectable=0",
		"toys.example.com/v1 robots kind=Robot list=RobotList singular=robot scope=Namespaced short=[rb] categories=[toys] storage=true status=true columns=3 selectable=1",
		"toys.example.com/v1beta1 robots kind=Robot list=RobotList singular=robot scope=Namespaced short=[rb] categories=[toys] storage=false status=false columns=0 selectable=0",
	}
	if diff := cmp.Diff(want, summary(reg)); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
}
