package namespace_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// testClient is one embedded etcd for the package's tests; each env has
// its own key prefix.
var (
	testClient *clientv3.Client
	prefixes   atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { testClient = c }))
}

// env is a real Store on etcd serving the built-in groups (the core
// group's Namespace, ConfigMap and Secret among them), hammers
// (tools.example.com), things (things.example.com) and gadgets
// (gadgets.example.com), with a Lifecycle
// in its write path.
type env struct {
	reg     *schemas.Registry
	store   *engine.Store
	life    *namespace.Lifecycle
	prefix  string
	storage *etcdstorage.Storage
	caches  *watchcache.Caches
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, map[string]string{"tools.yaml": testschemas.Tools, "things.yaml": testschemas.Things,
		"gadgets.yaml": testschemas.Gadgets(testschemas.GadgetOptions{})})
	reg, _, err := schemas.NewLoader(dir, builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{reg: reg, prefix: fmt.Sprintf("/ns-test/%d/", prefixes.Add(1)), storage: etcdstorage.New(testClient)}
	e.caches = watchcache.New(e.storage, watchcache.Config{Logger: quiet()})
	t.Cleanup(e.caches.Close)
	e.life = namespace.New(namespace.Config{Registry: e.registry, Logger: quiet()})
	e.store = engine.NewStore(e.storage, engine.Options{Keys: engine.Keys{Prefix: e.prefix}, Cache: e.cacheFor(), Logger: quiet(),
		NamespaceCheck: e.life, Strategies: e.life.Strategies(), WriteChecks: namespace.WriteChecks()})
	return e
}

func (e *env) cacheFor() engine.Cache {
	return watchcache.NewServed(e.caches, engine.Keys{Prefix: e.prefix}.Resource)
}

func (e *env) registry() *schemas.Registry { return e.reg }

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// start runs the Lifecycle's cache, bootstraps and, with controller,
// runs the namespace controller with quick retries.
func (e *env) start(t testing.TB, controller bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	t.Cleanup(func() { cancel(); <-done; <-done })
	go func() { e.life.Run(ctx, e.store); done <- struct{}{} }()
	if _, err := namespace.Bootstrap(ctx, e.store, e.store.Upkeep(), e.reg, quiet()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "namespaces cached", e.life.Synced)
	if !controller {
		done <- struct{}{}
		return
	}
	c := namespace.NewController(namespace.ControllerConfig{Store: e.store, Upkeep: e.store.Upkeep(), Registry: e.registry, Logger: quiet(),
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 100*time.Millisecond)})
	go func() { c.Run(ctx); done <- struct{}{} }()
}

func (e *env) rv(group, plural string) *schemas.ResourceVersion {
	r := e.reg.Resource(plural + "." + group)
	if group == "" {
		r = e.reg.Resource(plural)
	}
	return r.Version(r.StorageVersion)
}

func (e *env) create(ns, group, plural, body string) ([]byte, error) {
	res, err := e.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: e.rv(group, plural), Namespace: ns}, Body: []byte(body), Options: engine.WriteOptions{}})
	return res.Object, err
}

func (e *env) mustCreate(t testing.TB, ns, group, plural, body string) []byte {
	t.Helper()
	obj, err := e.create(ns, group, plural, body)
	if err != nil {
		t.Fatalf("create %s %s: %v", plural, gjson.Get(body, "metadata.name").Str, err)
	}
	return obj
}

func (e *env) get(ns, group, plural, name string) ([]byte, error) {
	return e.store.Get(context.Background(), engine.Ref{Version: e.rv(group, plural), Namespace: ns, Name: name})
}

func namespaceJSON(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, name)
}

func hammer(name string, finalizers ...string) string {
	fs := ""
	if len(finalizers) > 0 {
		fs = fmt.Sprintf(`,"finalizers":[%q]`, finalizers[0])
	}
	return fmt.Sprintf(`{"apiVersion":"tools.example.com/v1","kind":"Hammer","metadata":{"name":%q%s},"spec":{"weight":3}}`, name, fs)
}

func thing(name string) string {
	return fmt.Sprintf(`{"apiVersion":"things.example.com/v1alpha1","kind":"Thing","metadata":{"name":%q}}`, name)
}

func configMap(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"a":"b"}}`, name)
}

// eventually waits for cond, which watches and the controller make true.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
