package dirwatch_test

import (
	"testing"

	"github.com/specd-io/specd/internal/configvolume"
	"github.com/specd-io/specd/schemas/dirwatch"
)

// TestConfigMapVolume: a directory the kubelet updates as it updates a
// ConfigMap volume (a new timestamped folder, ..data renamed over, links
// added and removed) reports one change per update, also after the
// folder it watched first is gone.
func TestConfigMapVolume(t *testing.T) {
	steps := []struct {
		name  string
		files map[string]string
	}{
		{"a changed file", map[string]string{"a.yaml": "a2", "b.yaml": "b1"}},
		{"a new file", map[string]string{"a.yaml": "a2", "b.yaml": "b1", "c.yaml": "c1"}},
		{"a removed file", map[string]string{"a.yaml": "a2", "c.yaml": "c1"}},
		{"a changed file again", map[string]string{"a.yaml": "a3", "c.yaml": "c1"}},
		{"a file in a folder", map[string]string{"a.yaml": "a3", "c.yaml": "c1", "sub/d.yaml": "d1"}},
		{"a changed file in a folder", map[string]string{"a.yaml": "a3", "c.yaml": "c1", "sub/d.yaml": "d2"}},
		{"every file removed", map[string]string{}},
	}
	dir := t.TempDir()
	if err := configvolume.Write(dir, map[string]string{"a.yaml": "a1", "b.yaml": "b1"}); err != nil {
		t.Fatal(err)
	}
	reports := start(t, dir, dirwatch.Options{Quiet: quiet})
	for _, step := range steps {
		if err := configvolume.Write(dir, step.files); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: written", step.name)
		expectReports(t, reports, 1)
	}
}
