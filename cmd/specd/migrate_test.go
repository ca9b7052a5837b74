package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/storage"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/serving"
)

// twoStorageVersions returns the registries of a resource whose storage
// version is v1, then v2, and a reloader that knows both worlds (for
// their conversion).
func twoStorageVersions(t *testing.T) (r *serving.Set, v1, v2 *schemas.Registry) {
	t.Helper()
	r, dir := reloaderOn(t, serving.Config{}, map[string]string{
		"v1.yaml": withStorage("v1", "{storage: true}"),
		"v2.yaml": withStorage("v2", "{}"),
	})
	v1 = r.Registry()
	writeFiles(t, dir, map[string]string{
		"v1.yaml": withStorage("v1", "{}"),
		"v2.yaml": withStorage("v2", "{storage: true}"),
	})
	reloads := r.Serve(t.Context(), nil)
	defer reloads.Stop()
	if err := reloads.Reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	return r, v1, r.Registry()
}

// TestMigrationBeforeSwap: before a reload moves a storage version, the
// migration under way stops and the recorded migration to the version
// left is forgotten, so that it cannot be taken for done should that
// version come back; the migration of the new world runs after the swap.
// When the states cannot be read the reload fails and the migration of
// the served world runs again.
func TestMigrationBeforeSwap(t *testing.T) {
	ctx := t.Context()
	r, v1, v2 := twoStorageVersions(t)
	st := etcdstorage.New(etcdtest.Start(t))
	store := engine.NewStore(st, engine.Options{Converters: r.ConverterFor, Logger: quietLogger()})
	rv := v1.Group("gadgets.example.com").Resource("gadgets").Version("v1")
	for _, name := range []string{"a", "b"} {
		body := `{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"` + name + `"},"spec":{"size":1}}`
		if _, err := store.Create(ctx, rv, "default", []byte(body), engine.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res := v2.Group("gadgets.example.com").Resource("gadgets")
	stateKey := store.MigrationStateKey(res)
	m := &migrations{ctx: ctx, store: store, log: quietLogger()}
	defer m.Stop()
	m.restart(v2)
	waitState(t, st, stateKey, `"storageVersion":"v2"`)

	if err := m.BeforeSwap(ctx, v2, v2); err != nil || m.stop == nil {
		t.Fatalf("no move: %v, migration running %v", err, m.stop != nil)
	}
	if err := m.BeforeSwap(ctx, v2, v1); err != nil {
		t.Fatal(err)
	}
	if m.stop != nil {
		t.Error("the migration to v2 still runs")
	}
	if _, err := st.Get(ctx, stateKey); !errors.Is(err, storage.ErrKeyNotFound) {
		t.Errorf("the state of the migration to v2 is kept: %v", err)
	}
	m.ensureRunning(v1)
	waitState(t, st, stateKey, `"storageVersion":"v1"`)

	failing := &migrations{ctx: ctx, store: engine.NewStore(noStates{st}, engine.Options{Converters: r.ConverterFor, Logger: quietLogger()}), log: quietLogger()}
	defer failing.Stop()
	failing.restart(v1)
	if err := failing.BeforeSwap(ctx, v1, v2); err == nil || !strings.Contains(err.Error(), "recorded storage migrations cannot be read") {
		t.Errorf("states not readable: %v", err)
	}
	if failing.stop == nil {
		t.Error("the migration of the served world does not run again after a failed reload")
	}
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
	_, v1, v2 := twoStorageVersions(t)
	other, _ := reloaderOn(t, serving.Config{}, map[string]string{"t.yaml": strings.Replace(gadgetsFile("v1", "", sizeProp), "gadgets.example.com", "things.example.com", 1)})
	both := schemas.NewRegistry(append(v1.Groups(), other.Registry().Groups()...))
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
			if got := storageMoves(tc.old, tc.next); got != tc.want {
				t.Errorf("storageMoves = %v, want %v", got, tc.want)
			}
		})
	}
}
