package configvolume_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/configvolume"
)

// TestLayout: the links and the one timestamped folder of the kubelet's
// layout, through a first write, updates, a folder added and removed, and
// removed names.
func TestLayout(t *testing.T) {
	dir := t.TempDir()
	steps := []map[string]string{
		{"a.yaml": "a1", "b.yaml": "b1"},
		{"a.yaml": "a2", "b.yaml": "b1", "c.yaml": "c1", "sub/d.yaml": "d1"},
		{"a.yaml": "a2", "c.yaml": "c1", "sub/d.yaml": "d2", "sub/e.yaml": "e1"},
		{"a.yaml": "a2"},
	}
	for i, files := range steps {
		if err := configvolume.Write(dir, files); err != nil {
			t.Fatal(err)
		}
		checkLayout(t, dir, files)
		if t.Failed() {
			t.Fatalf("after write %d", i+1)
		}
	}
}

func checkLayout(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var visible, timestamped []string
	for _, e := range entries {
		switch {
		case e.Name() == "..data":
		case strings.HasPrefix(e.Name(), "..2"):
			timestamped = append(timestamped, e.Name())
		default:
			visible = append(visible, e.Name())
		}
	}
	if target, err := os.Readlink(filepath.Join(dir, "..data")); err != nil || len(timestamped) != 1 || target != timestamped[0] {
		t.Errorf("..data -> %q (%v), timestamped folders %v; want one, the link's target", target, err, timestamped)
	}
	var want []string
	for name, content := range files {
		first, _, _ := strings.Cut(name, "/")
		if !slices.Contains(want, first) {
			want = append(want, first)
		}
		if target, err := os.Readlink(filepath.Join(dir, first)); err != nil || target != filepath.Join("..data", first) {
			t.Errorf("%s -> %q (%v), want a link to ..data/%s", first, target, err, first)
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != content {
			t.Errorf("%s: %q (%v), want %q", name, got, err, content)
		}
	}
	slices.Sort(want)
	if !slices.Equal(visible, want) {
		t.Errorf("visible names %v, want %v", visible, want)
	}
}
