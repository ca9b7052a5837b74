package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestReadmeListsEveryDoc: README.md's list of documents and the index of
// docs/ (docs/README.md) name every page of docs/, so a new page cannot
// be left out of them.
func TestReadmeListsEveryDoc(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(harness.RepoRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	for index, prefix := range map[string]string{"README.md": "docs/", "docs/README.md": ""} {
		md, err := os.ReadFile(filepath.Join(harness.RepoRoot, index))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			if index == "docs/README.md" && filepath.Base(p) == "README.md" {
				continue
			}
			link := "(" + prefix + filepath.Base(p) + ")"
			if !strings.Contains(string(md), link) {
				t.Errorf("%s does not link %s", index, link)
			}
		}
	}
}
