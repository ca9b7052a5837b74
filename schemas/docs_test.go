package schemas

import (
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
		"fleet.example.com/v1 depots kind=Depot list=DepotList singular=depot scope=Cluster short=[dep] categories=[fleet] storage=true status=false columns=0 selectable=0",
		"fleet.example.com/v1 vehicles kind=Vehicle list=VehicleList singular=vehicle scope=Namespaced short=[veh] categories=[fleet] storage=true status=true columns=5 selectable=1",
	}
	if diff := cmp.Diff(want, summary(reg)); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
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
