package serving

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// gadgetsFile is the Gadget file of version; xSpecd is spliced into its
// x-specd, props are spec's properties (none: spec.size alone).
func gadgetsFile(version, xSpecd string, props ...string) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Version: version, XSpecd: xSpecd, Props: props})
}

// withColor are the Gadget's properties with spec.color added.
var withColor = []string{testschemas.SizeProp, testschemas.ColorProp}

// reloaderOn returns a started Set of a directory holding files.
func reloaderOn(t *testing.T, cfg Config, files map[string]string) (*Set, string) {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, files)
	cfg.Dir, cfg.Logger = dir, quietLogger()
	r, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, dir
}

// reloadsOf serves the reloads of r, the gate reading stored.
func reloadsOf(t *testing.T, r *Set, stored check.StoredObjects, followers ...Follower) *Reloads {
	t.Helper()
	reloads := r.Serve(t.Context(), stored, followers...)
	t.Cleanup(reloads.Stop)
	return reloads
}

func TestReloadGate(t *testing.T) {
	tests := map[string]struct {
		cfg     Config
		before  map[string]string
		after   map[string]string // "" removes the file
		stored  bool              // objects are stored in every version
		refused string            // the refusal names it; "" when applied
	}{
		"a new optional field": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "")},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)},
		},
		"a removed field of a stable version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "")},
			refused: "field-removed",
		},
		"a removed field of a beta version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1beta1", "", withColor...)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1beta1", "")},
			refused: "field-removed",
		},
		"a removed field of an alpha version": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", withColor...)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1alpha1", "")},
		},
		"a removed field with the file's annotation": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true")},
		},
		"a removed field with --allow-breaking": {
			cfg:    Config{AllowBreaking: true},
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "")},
		},
		"a removed field of a file with --crd-gate=false": {
			cfg:     Config{NoCRDGate: true},
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "")},
			refused: "field-removed",
		},
		"a changed type": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "")},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "", "size: {type: string}")},
			refused: "type",
		},
		"a removed stable file": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "")},
			after:   map[string]string{"g.yaml": ""},
			refused: "resource-removed",
		},
		"a removed stable file that was annotated": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true")},
			after:  map[string]string{"g.yaml": ""},
		},
		"a removed alpha file with objects": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "")},
			after:  map[string]string{"g.yaml": ""},
			stored: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, dir := reloaderOn(t, tc.cfg, tc.before)
			stored := storedIn{}
			if tc.stored {
				stored = storedIn{"v1": 1, "v1beta1": 1, "v1alpha1": 1}
			}
			reloads := reloadsOf(t, r, stored)
			served := r.Registry()
			testschemas.WriteFiles(t, dir, tc.after)
			err := reloads.Reload(context.Background(), "test")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("reload: %v, want a refusal naming %q", err, tc.refused)
			case tc.refused != "" && r.Registry() != served:
				t.Fatal("a refused reload changed the served registry")
			case tc.refused == "" && r.Registry() == served:
				t.Fatal("an applied reload kept the served registry")
			}
			if got := r.status.check(); (got != nil) != (tc.refused != "") {
				t.Errorf("readiness check after the reload: %v", got)
			}
		})
	}
}

// storedIn answers the gate's question from a table: how many objects
// of any resource are stored in each version.
type storedIn map[string]int64

func (s storedIn) StoredVersions(context.Context, *schemas.Resource) (map[string]check.Stored, error) {
	out := map[string]check.Stored{}
	for v, n := range s {
		out[v] = check.Stored{Count: n, Example: "default/g"}
	}
	return out, nil
}

// failingStored is a storage that does not answer.
type failingStored struct{}

func (failingStored) StoredVersions(context.Context, *schemas.Resource) (map[string]check.Stored, error) {
	return nil, errors.New("context deadline exceeded")
}

// withStorage is a gadgets file whose x-specd-resource is res.
func withStorage(version, res string) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Version: version, Resource: res})
}

// TestReloadRemovedVersionAndStoredObjects: a version may go only once no
// object is stored in it, by the version each object is stored in, not
// whether the resource has objects.
func TestReloadRemovedVersionAndStoredObjects(t *testing.T) {
	// v1beta1 (deprecated, so removing it breaks no rule of its own) is
	// the storage version before, v1 after.
	before := map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{storage: true, deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{}"),
	}
	removed := map[string]string{"v1beta1.yaml": "", "v1.yaml": withStorage("v1", "{storage: true}")}
	// v1 is the storage version already, v1beta1 an older one.
	moved := map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{storage: true}"),
	}
	tests := map[string]struct {
		before  map[string]string
		stored  check.StoredObjects
		refused string // "" when applied
	}{
		"the storage version, objects in it": {before: before, stored: storedIn{"v1beta1": 3, "v1": 2},
			refused: "v1beta1 is removed but 3 object(s) of gadgets.gadgets.example.com are stored in it (default/g and 2 more)"},
		"the storage version, objects in the other only": {before: before, stored: storedIn{"v1": 5}},
		"the storage version, no object":                 {before: before, stored: storedIn{}},
		"the storage version, storage does not answer": {before: before, stored: failingStored{},
			refused: "whether there are any is unknown: context deadline exceeded"},
		"the storage version, nothing to ask": {before: before, refused: "specd check --etcd-servers tells whether any is stored"},
		"an older version, objects not migrated yet": {before: moved, stored: storedIn{"v1beta1": 1, "v1": 4},
			refused: "v1beta1 is removed but 1 object(s) of gadgets.gadgets.example.com are stored in it"},
		"an older version, every object migrated": {before: moved, stored: storedIn{"v1": 5}},
		"an older version, storage does not answer": {before: moved, stored: failingStored{},
			refused: "whether there are any is unknown"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, dir := reloaderOn(t, Config{}, tc.before)
			reloads := reloadsOf(t, r, tc.stored)
			served := r.Registry()
			testschemas.WriteFiles(t, dir, removed)
			err := reloads.Reload(context.Background(), "test")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused == "" && r.Registry() == served:
				t.Fatal("an applied reload kept the served registry")
			case tc.refused != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.refused) ||
				!strings.Contains(err.Error(), "(storage-version-removed)")):
				t.Fatalf("reload: %v, want a storage-version-removed refusal naming %q", err, tc.refused)
			case tc.refused != "" && r.Registry() != served:
				t.Fatal("a refused reload changed the served registry")
			}
		})
	}
}

func TestReloadUnchangedAndBroken(t *testing.T) {
	r, dir := reloaderOn(t, Config{}, map[string]string{"g.yaml": gadgetsFile("v1", "")})
	reloads := reloadsOf(t, r, nil)
	served := r.Registry()
	if err := reloads.Reload(context.Background(), "test"); err != nil || r.Registry() != served {
		t.Fatalf("an unchanged directory: %v, registry kept %v", err, r.Registry() == served)
	}
	testschemas.WriteFiles(t, dir, map[string]string{"g.yaml": "openapi: [3"})
	err := reloads.Reload(context.Background(), "test")
	var le *schemas.LoadError
	if !errors.As(err, &le) || r.Registry() != served {
		t.Fatalf("a broken file: %v", err)
	}
	if c := r.status.check(); c == nil || !strings.Contains(c.Error(), filepath.Join(dir, "g.yaml")) {
		t.Errorf("readiness check: %v, want the file named", c)
	}
	testschemas.WriteFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)})
	if err := reloads.Reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	if c := r.status.check(); c != nil {
		t.Errorf("readiness check after the fix: %v", c)
	}
}

// TestConverterFollowsTheWorld: the converter of a resource is that of
// the world it came from, for the worlds retained.
func TestConverterFollowsTheWorld(t *testing.T) {
	r, dir := reloaderOn(t, Config{}, map[string]string{"g.yaml": gadgetsFile("v1", "")})
	first := r.current.Load()
	res := first.reg.Group("gadgets.example.com").Resources[0]
	testschemas.WriteFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", withColor...)})
	if err := reloadsOf(t, r, nil).Reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	second := r.current.Load()
	if r.ConverterFor(res) != first.conv {
		t.Error("a resource of the replaced world converts with the new world's rules")
	}
	nres := second.reg.Group("gadgets.example.com").Resources[0]
	if r.ConverterFor(nres) != second.conv {
		t.Error("a resource of the served world does not convert with its rules")
	}
	added, changed, removed := diffResources(first.reg, second.reg)
	if len(added) != 0 || len(removed) != 0 || len(changed) != 1 || changed[0] != "gadgets.gadgets.example.com" {
		t.Errorf("diff: added %v changed %v removed %v", added, changed, removed)
	}
}

// TestReloadSignal: a reload signal caught before Serve is acted on once
// reloads are served.
func TestReloadSignal(t *testing.T) {
	signals := make(chan os.Signal, 1)
	r, dir := reloaderOn(t, Config{ReloadSignals: signals}, map[string]string{"g.yaml": gadgetsFile("v1", "")})
	testschemas.WriteFiles(t, dir, map[string]string{"h.yaml": strings.ReplaceAll(gadgetsFile("v1", ""), "gadget", "gizmo")})
	signals <- syscall.SIGHUP
	reloadsOf(t, r, nil)
	deadline := time.Now().Add(5 * time.Second)
	for r.Registry().Group("gizmos.example.com") == nil {
		if time.Now().After(deadline) {
			t.Fatal("the signal sent before Serve did not reload the schemas")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
