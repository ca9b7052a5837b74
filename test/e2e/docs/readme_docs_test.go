package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestReadmeListsEveryDoc: README.md's list of documents names every page
// of docs/, so a new page cannot be left out of it.
func TestReadmeListsEveryDoc(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(harness.RepoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(harness.RepoRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	for _, p := range pages {
		link := "(docs/" + filepath.Base(p) + ")"
		if !strings.Contains(string(readme), link) {
			t.Errorf("README.md's list of documents does not link %s", link)
		}
	}
}
