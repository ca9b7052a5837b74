package migrate_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/internal/gizmotest"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// twoWorlds is the Gizmos of one group served with storage version v1,
// then v2, and a Store on st that converts the objects of each with its
// own registry's rules, as specd does across a reload.
type twoWorlds struct {
	v1, v2 *gizmotest.Gizmos
	st     storage.Storage
	store  *engine.Store
	quiet  *slog.Logger
}

func newTwoWorlds(t *testing.T, st storage.Storage) *twoWorlds {
	t.Helper()
	group := gizmotest.NewGroup()
	w := &twoWorlds{v1: gizmotest.Load(t, group, "v1"), v2: gizmotest.Load(t, group, "v2"), st: st, quiet: slog.New(slog.DiscardHandler)}
	w.store = engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: newPrefix()}, Logger: w.quiet, Converters: w.converterFor})
	for _, name := range []string{"a", "b"} {
		mustCreate(t, w.store, w.v1.V1, "default", w.v1.ObjectV1(name, 1))
	}
	return w
}

func (w *twoWorlds) converterFor(r *schemas.Resource) converters.Converter {
	for _, g := range []*gizmotest.Gizmos{w.v1, w.v2} {
		if r == g.Resource {
			return g.Converter
		}
	}
	return nil
}

func (w *twoWorlds) stateKey() string {
	return migrate.New(w.store.Upkeep(), w.quiet).StateKey(w.v1.Resource)
}

// TestRunnerBeforeSwap: before a reload moves a storage version, the
// migration under way stops and the recorded migration to the version
// left is forgotten, so that it cannot be taken for done should that
// version come back; the migration of the new registry runs after the
// swap. When the states cannot be read the reload fails and the
// migration of the served registry runs again.
func TestRunnerBeforeSwap(t *testing.T) {
	ctx := t.Context()
	w := newTwoWorlds(t, etcdstorage.New(testClient))
	v1, v2 := w.v1.Registry, w.v2.Registry
	m := migrate.NewRunner(ctx, w.store.Upkeep(), v2, w.quiet)
	defer background.New(m).Start(ctx)()
	waitState(t, w.st, w.stateKey(), `"storageVersion":"v2"`)

	if err := m.BeforeSwap(ctx, v2, v2); err != nil || m.Migrating() != v2 {
		t.Fatalf("no move: %v, migrating v2 %v", err, m.Migrating() == v2)
	}
	if err := m.BeforeSwap(ctx, v2, v1); err != nil {
		t.Fatal(err)
	}
	if m.Migrating() != nil {
		t.Error("the migration to v2 still runs")
	}
	if _, err := w.st.Get(ctx, w.stateKey()); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Errorf("the state of the migration to v2 is kept: %v", err)
	}
	m.AfterSwap(ctx, v2, v1)
	waitState(t, w.st, w.stateKey(), `"storageVersion":"v1"`)

	failing := migrate.NewRunner(ctx, engine.NewStore(noStates{w.st}, engine.Options{Converters: w.converterFor, Logger: w.quiet}).Upkeep(), v1, w.quiet)
	if err := failing.BeforeSwap(ctx, v1, v2); err == nil || !strings.Contains(err.Error(), "recorded storage migrations cannot be read") {
		t.Errorf("states not readable: %v", err)
	}
	if failing.Migrating() != v1 {
		t.Error("the migration of the served registry does not run again after a failed reload")
	}
}

// TestRunnerFollowsReloads: under a background Group, a reload that
// moves the storage version stops the migration and runs that of the new
// registry, which rewrites every object; a reload that moves nothing
// starts nothing; after the Group stops and runs again (a leader that
// leads again), the migration is found done.
func TestRunnerFollowsReloads(t *testing.T) {
	ctx := t.Context()
	w := newTwoWorlds(t, etcdstorage.New(testClient))
	v1, v2 := w.v1.Registry, w.v2.Registry
	m := migrate.NewRunner(ctx, w.store.Upkeep(), v1, w.quiet)
	group := background.New(m)
	stop := group.Start(ctx)
	defer func() { stop() }()
	swap := func(old, next *schemas.Registry) {
		t.Helper()
		if err := m.BeforeSwap(ctx, old, next); err != nil {
			t.Fatal(err)
		}
		m.AfterSwap(ctx, old, next)
	}
	swap(v1, v2)
	waitState(t, w.st, w.stateKey(), `"done":true`)
	waitState(t, w.st, w.stateKey(), `"storageVersion":"v2"`)
	for key, o := range gizmotest.Stored(t, w.st, w.store.Upkeep().Keys().Prefix, w.v1.Group) {
		if o.Get("apiVersion").Str != w.v1.Group+"/v2" {
			t.Errorf("%s not migrated: %s", key, o.Raw)
		}
	}
	swap(v2, v2)
	if m.Migrating() != v2 {
		t.Error("a reload that moves nothing changed the migration")
	}
	stop()
	stop = group.Start(ctx)
	mustCreate(t, w.store, w.v2.V1, "default", w.v2.ObjectV1("c", 1))
	swap(v2, v1)
	waitState(t, w.st, w.stateKey(), `"storageVersion":"v1"`)
	waitState(t, w.st, w.stateKey(), `"done":true`)
}

// waitState waits until the migration state under key contains want.
func waitState(t *testing.T, st storage.Storage, key, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		kv, err := st.Get(t.Context(), key)
		if err == nil && strings.Contains(string(kv.Value), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("migration state %s: %s, %v; want %s", key, kv.Value, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// noStates is a storage whose migration states cannot be read.
type noStates struct{ storage.Storage }

func (s noStates) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if strings.Contains(prefix, "_storage-migrations") {
		return storage.ListResult{}, errors.New("etcd is away")
	}
	return s.Storage.List(ctx, prefix, opts)
}

func TestStorageMoves(t *testing.T) {
	group := gizmotest.NewGroup()
	v1, v2 := gizmotest.Load(t, group, "v1").Registry, gizmotest.Load(t, group, "v2").Registry
	other := gizmotest.Load(t, gizmotest.NewGroup(), "v1").Registry
	both := schemas.NewRegistry(append(v1.Groups(), other.Groups()...))
	tests := map[string]struct {
		old, next *schemas.Registry
		want      bool
	}{
		"unchanged":          {v1, v1, false},
		"moved":              {v1, v2, true},
		"moved back":         {v2, v1, true},
		"a resource added":   {v1, both, true},
		"a resource removed": {both, v1, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := migrate.StorageMoves(tc.old, tc.next); got != tc.want {
				t.Errorf("storageMoves = %v, want %v", got, tc.want)
			}
		})
	}
}
