package main

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
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/schemas"
)

// gadgetsFile is a group version of one resource; level is its version
// ("v1", "v1beta1", "v1alpha1"), root more x-specd fields, props the
// spec's properties.
func gadgetsFile(version, root, props string) string {
	return `openapi: 3.0.3
info: {title: Gadgets, version: ` + version + `}
x-specd: {group: gadgets.example.com` + root + `}
components:
  schemas:
    Gadget:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
` + props
}

const (
	sizeProp  = "            size: {type: integer}\n"
	colorProp = "            color: {type: string}\n"
)

// reloaderOn returns a started reloader of a directory holding files.
func reloaderOn(t *testing.T, cfg serveConfig, files map[string]string) (*reloader, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	cfg.Schemas = dir
	r := newReloader(cfg, quietLogger())
	if err := r.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if content == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReloadGate(t *testing.T) {
	tests := map[string]struct {
		cfg     serveConfig
		before  map[string]string
		after   map[string]string // "" removes the file
		stored  bool              // objects are stored in every version
		refused string            // the refusal names it; "" when applied
	}{
		"a new optional field": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
		},
		"a removed field of a stable version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			refused: "field-removed",
		},
		"a removed field of a beta version": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1beta1", "", sizeProp+colorProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1beta1", "", sizeProp)},
			refused: "field-removed",
		},
		"a removed field of an alpha version": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp)},
		},
		"a removed field with the file's annotation": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true", sizeProp)},
		},
		"a removed field with --allow-breaking": {
			cfg:    serveConfig{AllowBreaking: true},
			before: map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)},
			after:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
		},
		"a changed type": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:   map[string]string{"g.yaml": gadgetsFile("v1", "", "            size: {type: string}\n")},
			refused: "type",
		},
		"a removed stable file": {
			before:  map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)},
			after:   map[string]string{"g.yaml": ""},
			refused: "resource-removed",
		},
		"a removed stable file that was annotated": {
			before: map[string]string{"g.yaml": gadgetsFile("v1", ", allowBreaking: true", sizeProp)},
			after:  map[string]string{"g.yaml": ""},
		},
		"a removed alpha file with objects": {
			before: map[string]string{"g.yaml": gadgetsFile("v1alpha1", "", sizeProp)},
			after:  map[string]string{"g.yaml": ""},
			stored: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, dir := reloaderOn(t, tc.cfg, tc.before)
			if tc.stored {
				r.stored = storedIn{"v1": 1, "v1beta1": 1, "v1alpha1": 1}
			} else {
				r.stored = storedIn{}
			}
			served := r.Registry()
			writeFiles(t, dir, tc.after)
			err := r.reload(context.Background(), "test")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (!errors.Is(err, errRefused) || !strings.Contains(err.Error(), tc.refused)):
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
	return strings.Replace(gadgetsFile(version, "", sizeProp), "x-specd-resource: {}", "x-specd-resource: "+res, 1)
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
			r, dir := reloaderOn(t, serveConfig{}, tc.before)
			r.stored = tc.stored
			served := r.Registry()
			writeFiles(t, dir, removed)
			err := r.reload(context.Background(), "test")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused == "" && r.Registry() == served:
				t.Fatal("an applied reload kept the served registry")
			case tc.refused != "" && (!errors.Is(err, errRefused) || !strings.Contains(err.Error(), tc.refused) ||
				!strings.Contains(err.Error(), "(storage-version-removed)")):
				t.Fatalf("reload: %v, want a storage-version-removed refusal naming %q", err, tc.refused)
			case tc.refused != "" && r.Registry() != served:
				t.Fatal("a refused reload changed the served registry")
			}
		})
	}
}

func TestReloadUnchangedAndBroken(t *testing.T) {
	r, dir := reloaderOn(t, serveConfig{}, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)})
	served := r.Registry()
	if err := r.reload(context.Background(), "test"); err != nil || r.Registry() != served {
		t.Fatalf("an unchanged directory: %v, registry kept %v", err, r.Registry() == served)
	}
	writeFiles(t, dir, map[string]string{"g.yaml": "openapi: [3"})
	err := r.reload(context.Background(), "test")
	var le *schemas.LoadError
	if !errors.As(err, &le) || r.Registry() != served {
		t.Fatalf("a broken file: %v", err)
	}
	if c := r.status.check(); c == nil || !strings.Contains(c.Error(), filepath.Join(dir, "g.yaml")) {
		t.Errorf("readiness check: %v, want the file named", c)
	}
	writeFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)})
	if err := r.reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	if c := r.status.check(); c != nil {
		t.Errorf("readiness check after the fix: %v", c)
	}
}

// TestConverterFollowsTheWorld: the converter of a resource is that of
// the world it came from, for the worlds retained.
func TestConverterFollowsTheWorld(t *testing.T) {
	r, dir := reloaderOn(t, serveConfig{}, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)})
	first := r.current.Load()
	res := first.reg.Group("gadgets.example.com").Resources[0]
	writeFiles(t, dir, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp+colorProp)})
	if err := r.reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	second := r.current.Load()
	if r.converterFor(res) != first.conv {
		t.Error("a resource of the replaced world converts with the new world's rules")
	}
	nres := second.reg.Group("gadgets.example.com").Resources[0]
	if r.converterFor(nres) != second.conv {
		t.Error("a resource of the served world does not convert with its rules")
	}
	added, changed, removed := diffResources(first, second)
	if len(added) != 0 || len(removed) != 0 || len(changed) != 1 || changed[0] != "gadgets.gadgets.example.com" {
		t.Errorf("diff: added %v changed %v removed %v", added, changed, removed)
	}
}

// TestReloadGateReadsStorage: the gate reads from etcd in which version
// each object is stored. After a reload that moves the storage version
// from v1beta1 to v1, removing v1beta1 is refused while objects written
// before are stored in it, and applied once the migration has rewritten
// them, though the resource still has objects.
func TestReloadGateReadsStorage(t *testing.T) {
	ctx := t.Context()
	r, dir := reloaderOn(t, serveConfig{}, map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{storage: true, deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{}"),
	})
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Converters: r.converterFor, Logger: quietLogger()})
	r.stored = storedObjects{store: store, timeout: 10 * time.Second}
	create := func(name string) {
		t.Helper()
		rv := r.Registry().Group("gadgets.example.com").Resource("gadgets").Version("v1")
		body := `{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"` + name + `"},"spec":{"size":1}}`
		if _, err := store.Create(ctx, rv, "default", []byte(body), engine.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("a")
	create("b")

	writeFiles(t, dir, map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{storage: true}"),
	})
	if err := r.reload(ctx, "test"); err != nil {
		t.Fatalf("moving the storage version: %v", err)
	}
	create("c") // stored in v1

	writeFiles(t, dir, map[string]string{"v1beta1.yaml": ""})
	err := r.reload(ctx, "test")
	if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), "v1beta1 is removed but 2 object(s) of gadgets.gadgets.example.com are stored in it (default/a and 1 more)") {
		t.Fatalf("removing v1beta1 before the migration: %v, want a refusal naming the 2 objects", err)
	}
	if _, err := migrate.New(store, quietLogger()).MigrateRegistry(ctx, r.Registry(), migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := r.reload(ctx, "test"); err != nil {
		t.Fatalf("removing v1beta1 after the migration: %v", err)
	}
	if r.Registry().Group("gadgets.example.com").Resource("gadgets").Version("v1beta1") != nil {
		t.Error("v1beta1 still served")
	}
}

// TestListenKeepsSIGHUP: once listen runs, a SIGHUP does not end the
// process; those that arrive before reloads are served make one request.
func TestListenKeepsSIGHUP(t *testing.T) {
	r, _ := reloaderOn(t, serveConfig{NoWatch: true}, map[string]string{"g.yaml": gadgetsFile("v1", "", sizeProp)})
	stop := r.listen()
	defer stop()
	for range 3 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the signals are delivered by now
	select {
	case <-r.signals:
	case <-time.After(5 * time.Second):
		t.Fatal("no reload request after SIGHUP")
	}
	select {
	case <-r.signals:
		t.Error("3 SIGHUPs made more than one request")
	default:
	}
}
