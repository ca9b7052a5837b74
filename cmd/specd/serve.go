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
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
	"github.com/specd-io/specd/schemas/serving"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/resetconn"
	"github.com/specd-io/specd/server/reviews"
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
// listener and its TLS, the plugins, the schemas and the storage.
type outside struct {
	listener net.Listener
	// tls is nil with --insecure-serving.
	tls       *certs.Serving
	chain     *requestChain
	host      *plugins.Host
	callbacks *plugins.LateCallbacks
	schemas   *serving.Set
	storage   storage.Storage
	etcd      *clientv3.Client
}

// serve runs until ctx ends. Schemas are loaded before anything starts, so a
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
	// Plugins start on first use, and call back through callbacks.
	out.callbacks = &plugins.LateCallbacks{}
	if out.host, err = openPlugins(cfg, out.callbacks, log); err != nil {
		return err
	}
	defer out.host.Close()
	if out.schemas, err = serving.New(ctx, serving.Config{Dir: cfg.Schemas, Builtin: []schemas.Builtin{builtin.Schemas()}, Disable: cfg.Disable, AllowBreaking: cfg.AllowBreaking,
		Watch: !cfg.NoWatch, ReloadSignals: reloadSignals, Logger: log, CheckBindings: out.host.CheckBindings}); err != nil {
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
	st, etcdClient, closeStorage, err := openStorage(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStorage()
	out.storage, out.etcd = encrypt(st), etcdClient
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

// writeChecks are the engine's WriteChecks: RBAC's (rbac) and kube's
// validation of ConfigMaps, Secrets and the finalizers of Namespaces.
func writeChecks(rbac map[string]engine.WriteCheck, crds *crd.API) map[string]engine.WriteCheck {
	checks := configdata.WriteChecks()
	maps.Copy(checks, namespace.WriteChecks())
	maps.Copy(checks, rbac)
	maps.Copy(checks, crds.WriteChecks())
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
func strategies(namespaces *namespace.Lifecycle) map[string]*engine.Strategy {
	out := namespaces.Strategies()
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
	served := watchcache.NewServed(caches, engine.CacheKeyOf(""))
	// The collector runs a pass at once, after deletes and periodically.
	trigger := gc.NewTrigger()
	// A delete through any replica pulls the trigger of the elected one.
	deletes := leader.NewSignal(out.etcd, "gc", trigger.Pull, log)
	authz := newAuthorization(cfg.Authorization, set.Registry, log)
	namespaces := namespace.New(namespace.Config{Registry: set.Registry, Logger: log})
	crds := crd.New(crd.Config{Registry: set.Registry, Logger: log})
	store := engine.NewStore(out.storage, engine.Options{Logger: log, Cache: served, OnDelete: deletes.Raise,
		Converters: set.ConverterFor, Admission: out.host, MaxObjectBytes: cfg.objectLimit(), WriteChecks: writeChecks(authz.writeChecks(), crds), Mutators: mutators(),
		TTL: cfg.ttl(), NamespaceCheck: namespaces.Check, CreateCheck: crds.CreateCheck, Strategies: strategies(namespaces),
		StrategicPatchMeta: gotypes.PatchMeta})
	stopNamespaces, err := startNamespaces(ctx, namespaces, store, set.Registry(), log)
	if err != nil {
		return err
	}
	defer stopNamespaces()
	if err := ensureKubernetesService(ctx, store, set.Registry(), out, log); err != nil {
		return err
	}
	policy := policyWriter{objects: store, log: log}
	if err := policy.start(ctx, set.Registry()); err != nil {
		return err
	}
	stopAuthz, aggregator, err := authz.start(ctx, store, set.Registry, log)
	if err != nil {
		return err
	}
	defer stopAuthz()
	// Plugins call back to the store from here on, each as its own user
	// and authorized as one: the one late binding (plugins.LateCallbacks
	// says why).
	out.callbacks.Bind(controller.NewClient(store, set.Registry).WithAuthorizer(authz.authorizer()))
	collector := gc.New(store, set.Registry, gc.Options{Logger: log.With("component", "gc"), Trigger: trigger})
	migration := migrate.NewRunner(ctx, store, set.Registry(), log)
	careConfig := cfg.etcdCare(out.etcd, log)
	var ready atomic.Bool
	handler := server.New(server.Config{
		Registry: set.Registry,
		Checks: []server.Check{etcdCheck(out.etcd), {Name: "schemas", Check: set.ReadyCheck, Informational: true}, {Name: "rbac", Check: authz.ready},
			{Name: "crd-informer-synced", Check: crds.Ready}},
		MoreChecks:        pluginChecks(out.host),
		Store:             store,
		Ready:             ready.Load,
		Logger:            log,
		Version:           server.KubeVersion(specdVersion),
		MinRequestTimeout: cfg.Chain.minRequestTimeout(),
		Profiling:         cfg.Profiling,
		Extra:             reviews.Groups(reviews.Config{Authorizer: authz.authorizer(), RuleResolver: authz.rbac}),
	})
	// No request reaches specd's routes unauthenticated or unauthorized.
	chained := out.chain.wrap(handler, authz.authorizer())
	httpServer, httpDone := startHTTP(out.listener, chained, handler.CloseWatches, out.tls, log)
	ready.Store(true)
	log.Info("serving", "address", scheme(out.tls)+"://"+out.listener.Addr().String())
	// The watch caches, then the storage migration, follow each reload.
	reloads := set.Serve(ctx, storedObjects{store: store, timeout: storedReadTimeout}, served, migration, policy)
	defer reloads.Stop()
	// CRD objects feed the same reloads as the schema files.
	crds.Bind(reloads)
	defer background.New(crdFeed(store, crds)).Start(ctx)()
	// The elected replica runs the background work; it stops (migration
	// progress kept, leadership resigned) before the storage closes.
	defer background.New(backgroundJobs(out.etcd, out.listener.Addr().String(), log,
		collector, deletes, migration, aggregator, crdController(store, crds), etcdcare.New(careConfig),
		controllers(controller.ServeConfig{Store: store, Reconciler: out.host, Registry: set.Registry, Workers: cfg.ReconcileWorkers, Logger: log}),
		namespaceController(store, namespaces, set.Registry, log))).Start(ctx)()
	return awaitShutdown(ctx, httpServer, httpDone, &ready, log)
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

// openStorage connects to the etcd cluster named by --etcd-servers, or starts
// an embedded one. Both go through the same client and Storage.
func openStorage(ctx context.Context, cfg serveConfig, log *slog.Logger) (storage.Storage, *clientv3.Client, func(), error) {
	if len(cfg.EtcdServers) == 0 {
		return openEmbedded(ctx, cfg, log)
	}
	client, err := etcdstorage.Connect(ctx, cfg.EtcdTLS.clientConfig(cfg.EtcdServers, log))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("etcd %v: %w", cfg.EtcdServers, err)
	}
	etcdcare.TimeRequests(client)
	closeClient := func() {
		if err := client.Close(); err != nil {
			log.Warn("etcd client close", "err", err)
		}
	}
	return etcdstorage.New(client), client, closeClient, nil
}

// openEmbedded starts the embedded etcd; specd reads and writes it
// in-process and watches it through its socket (Embedded.Client).
func openEmbedded(ctx context.Context, cfg serveConfig, log *slog.Logger) (storage.Storage, *clientv3.Client, func(), error) {
	embedded, err := etcdstorage.StartEmbedded(ctx, cfg.embeddedEtcd(log))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("embedded etcd: %w", err)
	}
	log.Info("embedded etcd started", "data-dir", cfg.DataDir, "endpoints", embedded.Endpoints())
	client, err := embedded.Client(ctx)
	if err != nil {
		_ = embedded.Close()
		return nil, nil, nil, fmt.Errorf("embedded etcd: %w", err)
	}
	etcdcare.TimeRequests(client)
	closeAll := func() {
		// The client first: etcd waits for open watches before it stops.
		if err := client.Close(); err != nil {
			log.Warn("etcd client close", "err", err)
		}
		if err := embedded.Close(); err != nil {
			log.Warn("embedded etcd close", "err", err)
		}
	}
	return etcdstorage.New(client), client, closeAll, nil
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
