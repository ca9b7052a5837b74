package namespace_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
)

// TestBootstrapSystemNamespaces: the system namespaces exist from the
// first start, as kube makes them; a second start creates nothing.
func TestBootstrapSystemNamespaces(t *testing.T) {
	e := newEnv(t)
	created, err := namespace.Bootstrap(context.Background(), e.store, e.store.Upkeep(), e.reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"default", "kube-node-lease", "kube-public", "kube-system"}
	if !slices.Equal(created, want) {
		t.Fatalf("created %q, want %q", created, want)
	}
	for _, name := range want {
		obj, err := e.get("", "", "namespaces", name)
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(obj, `[status.phase,spec.finalizers,metadata.labels.kubernetes\.io/metadata\.name]`).Raw; got != `["Active",["kubernetes"],"`+name+`"]` {
			t.Errorf("namespace %s: phase, finalizers, label = %s", name, got)
		}
	}
	if again, err := namespace.Bootstrap(context.Background(), e.store, e.store.Upkeep(), e.reg, quiet()); err != nil || len(again) != 0 {
		t.Fatalf("second bootstrap created %q, %v", again, err)
	}
}

// TestBootstrapAdoptsNamespaces: on a data dir written before namespaces
// were served, every namespace holding objects gets its Namespace, so
// that creates in it go on.
func TestBootstrapAdoptsNamespaces(t *testing.T) {
	e := newEnv(t)
	before := engine.NewStore(e.storage, engine.Options{Keys: engine.Keys{Prefix: e.prefix}, Logger: quiet()}) // no namespace check
	ctx := context.Background()
	for _, w := range []struct{ ns, group, plural, body string }{
		{"team-a", "tools.example.com", "hammers", hammer("h")},
		{"team-b", "tools.example.com", "hammers", hammer("h")},
		{"team-b", "things.example.com", "things", thing("t")},
		{"team-c", "", "configmaps", configMap("c")},
	} {
		if _, err := before.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv(w.group, w.plural), Namespace: w.ns}, Body: []byte(w.body), Options: engine.WriteOptions{}}); err != nil {
			t.Fatal(err)
		}
	}
	created, err := namespace.Bootstrap(ctx, e.store, e.store.Upkeep(), e.reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"default", "kube-node-lease", "kube-public", "kube-system", "team-a", "team-b", "team-c"}
	if !slices.Equal(created, want) {
		t.Fatalf("created %q, want %q", created, want)
	}
	e.start(t, false)
	e.mustCreate(t, "team-b", "tools.example.com", "hammers", hammer("new"))
}

// TestBootstrapWithoutNamespaces: a registry without the Namespace
// resource is an error naming it.
func TestBootstrapWithoutNamespaces(t *testing.T) {
	e := newEnv(t)
	if _, err := namespace.Bootstrap(context.Background(), e.store, e.store.Upkeep(), schemas.NewRegistry(nil), quiet()); err != namespace.ErrNotServed {
		t.Fatalf("bootstrap without namespaces: %v", err)
	}
}

// TestEnsureSystemOnly: EnsureSystem, which every replica runs, creates
// the System namespaces and not those that hold objects: adopting those
// is Bootstrap's, in the elected replica only.
func TestEnsureSystemOnly(t *testing.T) {
	e := newEnv(t)
	before := engine.NewStore(e.storage, engine.Options{Keys: engine.Keys{Prefix: e.prefix}, Logger: quiet()}) // no namespace check
	ctx := context.Background()
	if _, err := before.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv("tools.example.com", "hammers"), Namespace: "team-a"}, Body: []byte(hammer("h")), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	created, err := namespace.EnsureSystem(ctx, e.store, e.reg, quiet())
	if want := []string{"default", "kube-node-lease", "kube-public", "kube-system"}; err != nil || !slices.Equal(created, want) {
		t.Fatalf("created %q, %v; want %q", created, err, want)
	}
	if _, err := e.get("", "", "namespaces", "team-a"); err == nil {
		t.Fatal("EnsureSystem created team-a, which only holds objects")
	}
	if created, err := namespace.Bootstrap(ctx, e.store, e.store.Upkeep(), e.reg, quiet()); err != nil || !slices.Equal(created, []string{"team-a"}) {
		t.Fatalf("bootstrap after EnsureSystem created %q, %v; want team-a", created, err)
	}
}
