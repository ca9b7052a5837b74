package serving

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/configvolume"
	"github.com/specd-io/specd/schemas"
)

// TestReloadConfigMapVolume: a schema directory that the kubelet updates
// as a ConfigMap volume (internal/configvolume) is reloaded on each
// update: a changed file, a new one, a removed one, one in a folder. Only
// the visible names are read, not the timestamped folder beside them.
func TestReloadConfigMapVolume(t *testing.T) {
	// An alpha version with no object stored may go (gate.go).
	gizmos := strings.ReplaceAll(gadgetsFile("v1alpha1", ""), "gadget", "gizmo")
	dir := t.TempDir()
	if err := configvolume.Write(dir, map[string]string{"g.yaml": gadgetsFile("v1", "")}); err != nil {
		t.Fatal(err)
	}
	r, err := New(context.Background(), Config{Dir: dir, Logger: quietLogger(), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	reloadsOf(t, r, storedIn{})
	steps := []struct {
		name   string
		files  map[string]string
		served func(*schemas.Registry) bool
	}{
		{"a changed file", map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)}, hasGroups("gadgets")},
		{"a new file", map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...), "h.yaml": gizmos}, hasGroups("gadgets", "gizmos")},
		{"a removed file", map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)}, hasGroups("gadgets")},
		// Items with a folder: the folder is a link through ..data.
		{"a file in a folder", map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...), "more/h.yaml": gizmos}, hasGroups("gadgets", "gizmos")},
		{"the folder removed", map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)}, hasGroups("gadgets")},
	}
	for _, step := range steps {
		before := r.Registry()
		if err := configvolume.Write(dir, step.files); err != nil {
			t.Fatal(err)
		}
		waitFor(t, step.name, func() bool { return r.Registry() != before && step.served(r.Registry()) })
	}
}

// hasGroups: the registry serves example.com's groups named, and no
// other.
func hasGroups(names ...string) func(*schemas.Registry) bool {
	return func(reg *schemas.Registry) bool {
		for _, g := range []string{"gadgets", "gizmos"} {
			want := false
			for _, n := range names {
				want = want || n == g
			}
			if (reg.Group(g+".example.com") != nil) != want {
				return false
			}
		}
		return true
	}
}

func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reloaded within 5s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
