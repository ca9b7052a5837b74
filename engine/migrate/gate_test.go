package migrate_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/serving"
)

// withStorage is the Gadget file of version whose x-specd-resource is
// res.
func withStorage(version, res string) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Version: version, Resource: res})
}

// reloaderOn returns a started schema set of a directory holding files.
func reloaderOn(t *testing.T, cfg serving.Config, files map[string]string) (*serving.Set, string) {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, files)
	cfg.Dir, cfg.Logger = dir, slog.New(slog.DiscardHandler)
	r, err := serving.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, dir
}

// TestReloadGateReadsStorage: the gate reads from etcd in which version
// each object is stored. After a reload that moves the storage version
// from v1beta1 to v1, removing v1beta1 is refused while objects written
// before are stored in it, and applied once the migration has rewritten
// them, though the resource still has objects.
func TestReloadGateReadsStorage(t *testing.T) {
	ctx := t.Context()
	st := etcdstorage.New(testClient)
	keys := engine.Keys{Prefix: newPrefix()}
	r, dir := reloaderOn(t, serving.Config{}, map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{storage: true, deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{}"),
	})
	store := engine.NewStore(st, engine.Options{Keys: keys, Converters: r.ConverterFor, Logger: slog.New(slog.DiscardHandler)})
	reloads := r.Serve(ctx, migrate.StoredObjects{Storage: st, Keys: keys, Timeout: 10 * time.Second})
	defer reloads.Stop()
	create := func(name string) {
		t.Helper()
		rv := r.Registry().Group("gadgets.example.com").Resource("gadgets").Version("v1")
		if _, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(testschemas.Gadget("v1", name)), Options: engine.WriteOptions{}}); err != nil {
			t.Fatal(err)
		}
	}
	create("a")
	create("b")

	testschemas.WriteFiles(t, dir, map[string]string{
		"v1beta1.yaml": withStorage("v1beta1", "{deprecated: true}"),
		"v1.yaml":      withStorage("v1", "{storage: true}"),
	})
	if err := reloads.Reload(ctx, "test"); err != nil {
		t.Fatalf("moving the storage version: %v", err)
	}
	create("c") // stored in v1

	testschemas.WriteFiles(t, dir, map[string]string{"v1beta1.yaml": ""})
	err := reloads.Reload(ctx, "test")
	if !errors.Is(err, serving.ErrRefused) || !strings.Contains(err.Error(), "v1beta1 is removed but 2 object(s) of gadgets.gadgets.example.com are stored in it (default/a and 1 more)") {
		t.Fatalf("removing v1beta1 before the migration: %v, want a refusal naming the 2 objects", err)
	}
	if _, err := migrate.New(store.Upkeep(), slog.New(slog.DiscardHandler)).MigrateRegistry(ctx, r.Registry(), migrate.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := reloads.Reload(ctx, "test"); err != nil {
		t.Fatalf("removing v1beta1 after the migration: %v", err)
	}
	if r.Registry().Group("gadgets.example.com").Resource("gadgets").Version("v1beta1") != nil {
		t.Error("v1beta1 still served")
	}
}
