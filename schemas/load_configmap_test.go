package schemas

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/internal/configvolume"
)

// TestLoadConfigMapFolders: a ConfigMap volume whose items have folders
// (a projected volume of ConfigMaps, each under a path of its own) shows
// each first folder as a link through ..data; the files under it are
// loaded, once.
func TestLoadConfigMapFolders(t *testing.T) {
	dir := t.TempDir()
	err := configvolume.Write(dir, map[string]string{
		"shop.example.com/v1.yaml": gv("shop.example.com", "v1", widget("Widget", "{}")),
		"cm.yaml":                  gv("cm.example.com", "v1", widget("Widget", "{}")),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Lookup("shop.example.com", "v1", "widgets") == nil || reg.Lookup("cm.example.com", "v1", "widgets") == nil {
		t.Fatalf("groups: %v, want shop.example.com (in a linked folder) and cm.example.com", summary(reg))
	}
	if got, want := reg.GroupVersion("shop.example.com", "v1").File, filepath.Join(dir, "shop.example.com", "v1.yaml"); got != want {
		t.Errorf("File = %q, want %q, the visible path", got, want)
	}
}

// TestLoadLinkCycle: a link to a folder that holds it is followed once,
// not for ever.
func TestLoadLinkCycle(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "shop")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "v1.yaml"), []byte(gv("shop.example.com", "v1", widget("Widget", "{}"))), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"shop/again": "..", "root": "."} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := Load(dir)
	if err != nil {
		t.Fatalf("Load of a folder linked into itself: %v", err)
	}
	if reg.Lookup("shop.example.com", "v1", "widgets") == nil {
		t.Fatalf("groups: %v", summary(reg))
	}
}
