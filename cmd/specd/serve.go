package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/configdata"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/crd"
	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/resetconn"
	"github.com/specd-io/specd/server/reviews"
	"github.com/specd-io/specd/serving"
)

func serveCommand(ctx context.Context, args []string, stderr io.Writer) int {
	cfg, err := parseServeFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "specd serve: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	// The k8s.io/apiserver packages specd serves with log through klog.
	klog.SetSlogLogger(log)
	tightenGC()
	if err := serve(ctx, cfg, log); err != nil {
		fmt.Fprintf(stderr, "specd serve: %v\n", err)
		return 1
	}
	return 0
}

// outside is what serve opens before it builds anything on it: the API's
// listener and its TLS, the request chain, the plugins directory, the
// schemas and the storage.
type outside struct {
	listener net.Listener
	// tls is nil with --insecure-serving.
	tls     *certs.Serving
	chain   *requestChain
	catalog *plugins.Catalog
	storage storage.Storage
	etcd    *clientv3.Client
	// stored tells the compatibility gate in which versions objects are
	// stored.
	stored  migrate.StoredObjects
	schemas *serving.Set
}

// storedReadTimeout bounds the compatibility gate's read of the versions
// a resource's objects are stored in.
const storedReadTimeout = 30 * time.Second

// serve runs until ctx ends. Schemas are loaded before etcd starts, so a
// broken schema directory stops specd with every problem listed. What it
// opens closes in reverse order: the HTTP server first, then the etcd
// client, then etcd, since an etcd that still has clients takes seconds
// to close.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	// A SIGHUP is a reload request from here on: one that arrives while
	// specd starts must neither end it (Go's default) nor be lost.
	reloadSignals := make(chan os.Signal, 1)
	signal.Notify(reloadSignals, syscall.SIGHUP)
	defer signal.Stop(reloadSignals)
	var out outside
	var err error
	if out.listener, err = net.Listen("tcp", cfg.Listen); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer out.listener.Close()
	if out.catalog, err = plugins.OpenCatalog(cfg.Plugins, log.With("component", "plugins")); err != nil {
		return fmt.Errorf("--plugins: %w", err)
	}
	if out.schemas, err = serving.New(ctx, serving.Config{Dir: cfg.Schemas, Builtin: []schemas.Builtin{builtin.Schemas()}, Disable: cfg.Disable, AllowBreaking: cfg.AllowBreaking,
		Watch: !cfg.NoWatch, ReloadSignals: reloadSignals, Logger: log, CheckBindings: out.catalog.CheckBindings}); err != nil {
		return err
	}
	defer out.schemas.Close()
	log.Info("schemas loaded", "dir", cfg.Schemas, "groups", len(out.schemas.Registry().Groups()))
	// Before etcd starts: a bad file stops specd at once. Every path to
	// the objects (the engine, the watch caches, migration, gc) goes
	// through the storage it wraps.
	encrypt, err := cfg.Encryption.load(log)
	if err != nil {
		return err
	}
	opened, err := etcdcare.Open(ctx, cfg.etcd(log))
	if err != nil {
		return err
	}
	defer opened.Close()
	out.storage, out.etcd = encrypt(opened.Storage), opened.Client
	out.stored = migrate.StoredObjects{Storage: out.storage, Keys: engine.Keys{}, Timeout: storedReadTimeout}
	// After the embedded etcd, which vets --data-dir's permissions before
	// anything is written there.
	if out.tls, err = cfg.TLS.open(ctx, cfg.DataDir, cfg.Listen, out.listener.Addr(), log); err != nil {
		return err
	}
	if out.chain, err = openChain(ctx, cfg.Chain, out.tls, log); err != nil {
		return err
	}
	defer out.chain.close()
	return serveOn(ctx, cfg, out, log)
}

// parts are the engine and what is made with it, by serveOn.
type parts struct {
	store      *engine.Store
	host       *plugins.Host
	authz      *authorization
	namespaces *namespace.Lifecycle
	crds       *crd.API
	caches     *watchcache.Served
	deletes    *leader.Signal
	trigger    *gc.Trigger
}

// newParts makes the Store and what its writes call: the namespaces'
// lifecycle, the CRD API, RBAC's checks, and the plugin host, which is
// made with the Store (engine.Options.Admission): it serves plugins the
// callbacks of a Client over that Store, authorized as each plugin.
func newParts(cfg serveConfig, out outside, caches *watchcache.Caches, log *slog.Logger) *parts {
	set := out.schemas
	p := &parts{trigger: gc.NewTrigger(), caches: watchcache.NewServed(caches, engine.Keys{}.Resource),
		authz:      newAuthorization(cfg.Authorization, set.Registry, log),
		namespaces: namespace.New(namespace.Config{Registry: set.Registry, Logger: log}),
		crds:       crd.New(crd.Config{Registry: set.Registry, Schemas: set, Stored: out.stored, Logger: log})}
	// A delete through any replica pulls the trigger of the elected one.
	p.deletes = leader.NewSignal(out.etcd, "gc", p.trigger.Pull, log)
	admission := func(self *engine.Store) hook.Admission {
		callbacks := controller.NewClient(self, set.Registry).WithAuthorizer(p.authz.authorizer())
		p.host = plugins.NewHost(plugins.HostConfig{Catalog: out.catalog, Logger: log.With("component", "plugins"), Callbacks: callbacks})
		return p.host
	}
	p.store = engine.NewStore(out.storage, engine.Options{Logger: log, Cache: p.caches, OnDelete: p.deletes.Raise,
		Converters: set.ConverterFor, Admission: admission, MaxObjectBytes: cfg.objectLimit(), WriteChecks: p.writeChecks(), Mutators: mutators(),
		TTL: cfg.ttl(), NamespaceCheck: p.namespaces, CreateCheck: p.crds.CreateCheck, Strategies: p.strategies(),
		StrategicPatchMeta: gotypes.PatchMeta})
	return p
}

// writeChecks are the engine's WriteChecks: RBAC's, kube's validation of
// ConfigMaps, Secrets and the finalizers of Namespaces, and the CRDs'.
func (p *parts) writeChecks() map[string]engine.WriteCheck {
	checks := configdata.WriteChecks()
	maps.Copy(checks, namespace.WriteChecks())
	maps.Copy(checks, p.authz.writeChecks())
	maps.Copy(checks, p.crds.WriteChecks())
	return checks
}

// mutators are the engine's Mutators: Secrets', ConfigMaps' and the RBAC
// bindings' defaults.
func mutators() map[string]engine.Mutator {
	out := configdata.Mutators()
	maps.Copy(out, rbac.Mutators())
	return out
}

// strategies are the engine's Strategies: Namespaces' and CRDs'.
func (p *parts) strategies() map[string]*engine.Strategy {
	out := p.namespaces.Strategies()
	maps.Copy(out, crd.Strategies())
	return out
}

// serveOn builds the engine and the server on what serve opened, and serves
// until ctx ends.
func serveOn(ctx context.Context, cfg serveConfig, out outside, log *slog.Logger) error {
	set := out.schemas
	// One watch cache per resource, fed by one etcd watch each, started on
	// the resource's first use; a reload ends those of the resources it
	// changes.
	caches := watchcache.New(out.storage, watchcache.Config{Logger: log})
	defer caches.Close()
	p := newParts(cfg, out, caches, log)
	defer p.host.Close()
	stopNamespaces, err := p.namespaces.Start(ctx, p.store)
	if err != nil {
		return err
	}
	defer stopNamespaces()
	if err := ensureKubernetesService(ctx, p.store, set.Registry(), out, log); err != nil {
		return err
	}
	policy := rbac.PolicyWriter{Objects: p.store, Logger: log}
	if err := policy.Start(ctx, set.Registry()); err != nil {
		return err
	}
	stopAuthz, aggregator, err := p.authz.start(ctx, p.store, set.Registry, log)
	if err != nil {
		return err
	}
	defer stopAuthz()
	migration := migrate.NewRunner(ctx, p.store.Upkeep(), set.Registry(), log)
	var ready atomic.Bool
	handler := newServer(cfg, out, p, ready.Load, log)
	// No request reaches specd's routes unauthenticated or unauthorized.
	chained := out.chain.wrap(handler, p.authz.authorizer())
	httpServer, httpDone := startHTTP(out.listener, chained, handler.CloseWatches, out.tls, log)
	ready.Store(true)
	log.Info("serving", "address", scheme(out.tls)+"://"+out.listener.Addr().String())
	// The watch caches, then the storage migration, follow each reload.
	reloads := set.Serve(ctx, out.stored, p.caches, migration, policy)
	defer reloads.Stop()
	// CRD objects feed the same reloads as the schema files.
	defer background.New(p.crds.Feed(crd.FeedConfig{Store: p.store, Reloads: reloads})).Start(ctx)()
	// The elected replica runs the background work; it stops (migration
	// progress kept, leadership resigned) before the storage closes.
	defer background.New(p.elected(cfg, out, migration, aggregator, log)).Start(ctx)()
	return awaitShutdown(ctx, httpServer, httpDone, &ready, log)
}

// elected is the background work that runs on the elected replica only.
func (p *parts) elected(cfg serveConfig, out outside, migration *migrate.Runner, aggregator *rbac.Aggregator, log *slog.Logger) background.Job {
	set := out.schemas
	collector := gc.New(p.store.Upkeep(), set.Registry, gc.Options{Logger: log.With("component", "gc"), Trigger: p.trigger})
	namespaces := namespace.NewController(namespace.ControllerConfig{Store: p.store, Upkeep: p.store.Upkeep(), Registry: set.Registry, Logger: log})
	controllers := controller.Job(controller.ServeConfig{Store: p.store, Reconciler: p.host, Registry: set.Registry, Workers: cfg.ReconcileWorkers, Logger: log})
	leading := leader.Config{Client: out.etcd, Key: leader.Key, ID: leader.ReplicaID(out.listener.Addr().String()), Logger: log}
	return leader.Jobs(leading, collector, p.deletes, migration, aggregator, p.crds.Elected(p.store), etcdcare.New(cfg.etcdCare(out.etcd, log)),
		controllers, namespaces.Elected(p.namespaces))
}

// newServer is the API's handler on the parts, before the request chain.
func newServer(cfg serveConfig, out outside, p *parts, ready func() bool, log *slog.Logger) *server.Server {
	set := out.schemas
	return server.New(server.Config{
		Registry: set.Registry,
		Checks: []server.Check{{Name: "etcd", Check: etcdcare.Healthy(out.etcd)}, {Name: "schemas", Check: set.ReadyCheck, Informational: true},
			{Name: "rbac", Check: p.authz.ready}, {Name: "crd-informer-synced", Check: p.crds.Ready}},
		MoreChecks:        pluginChecks(p.host),
		Store:             p.store,
		Ready:             ready,
		Logger:            log,
		Version:           server.KubeVersion(specdVersion),
		MinRequestTimeout: cfg.Chain.minRequestTimeout(),
		Profiling:         cfg.Profiling,
		Extra:             reviews.Groups(reviews.Config{Authorizer: p.authz.authorizer(), RuleResolver: p.authz.rbac}),
	})
}

// startHTTP serves handler on listener, over TLS unless serving is nil;
// done receives why it stopped. closeWatches ends the open watches,
// which never end by themselves, on Shutdown. A connection whose write
// timed out (a watch client that stopped reading) is reset when closed,
// so that the client sees its end (resetconn).
func startHTTP(listener net.Listener, handler http.Handler, closeWatches func(), serving *certs.Serving, log *slog.Logger) (*http.Server, <-chan error) {
	listener = resetconn.Listener(listener)
	httpServer := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpServer.RegisterOnShutdown(closeWatches)
	done := make(chan error, 1)
	if serving == nil {
		go func() { done <- httpServer.Serve(listener) }()
		return httpServer, done
	}
	// ServeTLS with no files: the certificates come from the TLS config,
	// and it sets HTTP/2 up as ListenAndServeTLS would.
	httpServer.TLSConfig = serving.TLSConfig()
	go func() { done <- httpServer.ServeTLS(listener, "", "") }()
	return httpServer, done
}

func scheme(serving *certs.Serving) string {
	if serving == nil {
		return "http"
	}
	return "https"
}

// awaitShutdown waits for ctx to end, then shuts the HTTP server down.
func awaitShutdown(ctx context.Context, httpServer *http.Server, done <-chan error, ready *atomic.Bool, log *slog.Logger) error {
	select {
	case err := <-done:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	ready.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	return nil
}

// gcPercent is specd's default GOGC. specd allocates much per request and
// keeps little per object beyond the watch cache, so Go's default pacing
// (GOGC=100) lets the heap grow to twice the live data. 50 halves that
// headroom for a few percent of CPU (docs/performance.md). A GOGC in the
// environment still wins.
const gcPercent = 50

func tightenGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
