package main

import (
	"context"
	"errors"
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
	"github.com/specd-io/specd/engine/kubernetesservice"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/engine/memstorage"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/engine/rootca"
	"github.com/specd-io/specd/engine/statusapi"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/aggregated"
	"github.com/specd-io/specd/server/apiservices"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/chain"
	"github.com/specd-io/specd/server/console"
	"github.com/specd-io/specd/server/httpserve"
	"github.com/specd-io/specd/server/reviews"
	"github.com/specd-io/specd/serving"
)

// runServe serves cfg until ctx ends, logging to stderr.
func runServe(ctx context.Context, cfg serveConfig, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	// The k8s.io/apiserver packages specd serves with log through klog.
	klog.SetSlogLogger(log)
	tightenGC()
	return serve(ctx, cfg, log)
}

// outside is what serve opens before it builds anything on it: the API's
// listener and its TLS, the request chain, the plugins directory, the
// schemas and the storage.
type outside struct {
	listener net.Listener
	// tls is nil with --insecure-serving.
	tls     *certs.Serving
	chain   *chain.Chain
	catalog *plugins.Catalog
	storage storage.Storage
	etcd    *clientv3.Client
	// stored tells the compatibility gate in which versions objects are
	// stored.
	stored  migrate.StoredObjects
	schemas *serving.Set
	// status keeps specd's own status.specd.io objects, under their
	// prefix of storage (engine/statusapi).
	status *memstorage.Storage
	// agg is the host cluster when specd serves aggregated, else nil.
	agg *aggregated.Host
}

// storedReadTimeout bounds the compatibility gate's read of the versions
// a resource's objects are stored in.
const storedReadTimeout = 30 * time.Second

// serve runs until ctx ends. etcd starts while the schemas load; a
// broken schema directory stops specd with every problem listed, and the
// etcd started meanwhile is closed again. What it opens closes in
// reverse order: the HTTP server first, then the etcd client, then etcd,
// since an etcd that still has clients takes seconds to close.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	// A SIGHUP is a reload request from here on: one that arrives while
	// specd starts must neither end it (Go's default) nor be lost.
	reloadSignals := make(chan os.Signal, 1)
	signal.Notify(reloadSignals, syscall.SIGHUP)
	defer signal.Stop(reloadSignals)
	var out outside
	var err error
	if out.listener, err = httpserve.Listen(cfg.Listen); err != nil {
		return err
	}
	defer out.listener.Close()
	if out.agg, err = aggregated.Open(ctx, cfg.Aggregation, log); err != nil {
		return err
	}
	if out.catalog, err = plugins.OpenCatalog(cfg.Plugins, log.With("component", "plugins")); err != nil {
		return fmt.Errorf("--plugins: %w", err)
	}
	// Before etcd starts: a bad file stops specd at once. Every path to
	// the objects (the engine, the watch caches, migration, gc) goes
	// through the storage it wraps.
	encrypt, err := cfg.Encryption.Load(engine.DefaultPrefix, log)
	if err != nil {
		return err
	}
	opening := etcdcare.OpenAsync(ctx, cfg.Etcd.Open(cfg.DataDir, cfg.objectLimit(), log))
	if out.schemas, err = serving.New(ctx, serving.Config{Dir: cfg.Schemas, Builtin: []schemas.Builtin{builtin.Schemas()}, Disable: cfg.Disable, AllowBreaking: cfg.AllowBreaking, NoCRDGate: !cfg.CRDGate,
		Watch: cfg.Watch, ReloadSignals: reloadSignals, Logger: log, CheckBindings: out.catalog.CheckBindings}); err != nil {
		opening.Abandon()
		return err
	}
	defer out.schemas.Close()
	log.Info("schemas loaded", "dir", cfg.Schemas, "groups", len(out.schemas.Registry().Groups()))
	opened, err := opening.Wait()
	if err != nil {
		return err
	}
	defer opened.Close()
	out.storage, out.etcd = encrypt(opened.Storage), opened.Client
	out.status = memstorage.New(0)
	out.storage = memstorage.Route(out.storage, statusapi.Prefix(engine.Keys{}), out.status)
	out.stored = migrate.StoredObjects{Storage: out.storage, Keys: engine.Keys{}, Timeout: storedReadTimeout}
	// After the embedded etcd, which vets --data-dir's permissions before
	// anything is written there.
	if out.tls, err = cfg.TLS.Open(ctx, certs.Place{DataDir: cfg.DataDir, Listen: cfg.Listen, Addr: out.listener.Addr(), HandshakeCAs: out.agg.HandshakeCAs()}, log); err != nil {
		return err
	}
	if out.chain, err = chain.Open(ctx, chain.Config{Flags: cfg.Chain, Serving: out.tls, Delegation: out.agg.Delegation(), Logger: log}); err != nil {
		return err
	}
	defer out.chain.Close()
	return serveOn(ctx, cfg, out, log)
}

// parts are the engine and what is made with it, by serveOn.
type parts struct {
	store      *engine.Store
	host       *plugins.Host
	authz      *rbac.Authorization
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
		authz:      &rbac.Authorization{Mode: cfg.Authorization, RBAC: rbac.New(rbac.Config{Registry: set.Registry, Logger: log})},
		namespaces: namespace.New(namespace.Config{Registry: set.Registry, Logger: log}),
		crds:       crd.New(crd.Config{Registry: set.Registry, Schemas: set, Stored: out.stored, Logger: log})}
	// A delete through any replica pulls the trigger of the elected one.
	p.deletes = leader.NewSignal(out.etcd, "gc", p.trigger.Pull, log)
	admission := func(self *engine.Store) hook.Admission {
		callbacks := controller.NewClient(self, set.Registry).WithAuthorizer(p.authz.Authorizer())
		p.host = plugins.NewHost(plugins.HostConfig{Catalog: out.catalog, Logger: log.With("component", "plugins"), Callbacks: callbacks, Events: out.agg.Events()})
		return p.host
	}
	p.store = engine.NewStore(out.storage, engine.Options{Logger: log, Cache: p.caches, OnDelete: p.deletes.Raise,
		Converters: set.ConverterFor, Admission: admission, MaxObjectBytes: cfg.objectLimit(), WriteChecks: p.writeChecks(), Mutators: mutators(),
		TTL: cfg.ttl(), NamespaceCheck: out.agg.NamespaceCheck(p.namespaces), CreateCheck: p.crds.CreateCheck, Strategies: p.strategies(),
		StrategicPatchMeta: gotypes.PatchMeta})
	return p
}

// writeChecks are the engine's WriteChecks: RBAC's, kube's validation of
// ConfigMaps, Secrets and the finalizers of Namespaces, and the CRDs'.
func (p *parts) writeChecks() map[string]engine.WriteCheck {
	checks := configdata.WriteChecks()
	maps.Copy(checks, namespace.WriteChecks())
	maps.Copy(checks, p.authz.WriteChecks())
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
	defer statusapi.Start(ctx, statusapi.Config{Memory: out.status, Keys: engine.Keys{}, Schemas: set, SchemaDir: cfg.Schemas,
		Storage: out.storage, Plugins: p.host.Health, Cluster: statusapi.EtcdCluster{Client: out.etcd}, Logger: log})()
	// The default RBAC policy (cluster-scoped) is written while the
	// namespaces and the kubernetes service are: etcd commits them together.
	policy := rbac.NewPolicyWriter(p.store, log)
	written := make(chan error, 1)
	go func() { written <- policy.Start(ctx, set.Registry()) }()
	stopNamespaces, err := p.namespaces.Start(ctx, p.store)
	if err == nil {
		defer stopNamespaces()
		err = kubernetesservice.EnsureServing(ctx, p.store, set.Registry(), out.listener.Addr(), out.tls != nil, log)
	}
	if err := errors.Join(err, <-written); err != nil {
		return err
	}
	defer background.New(policy).Start(ctx)()
	stopAuthz, aggregator, err := p.authz.RBAC.Start(ctx, p.store, set.Registry, log)
	if err != nil {
		return err
	}
	defer stopAuthz()
	migration := migrate.NewRunner(ctx, p.store.Upkeep(), set.Registry(), log)
	registrar, err := out.agg.Registrar(cfg.DataDir, out.listener.Addr(), log)
	if err != nil {
		return err
	}
	// The watch caches, then the storage migration, follow each reload.
	reloads := set.Serve(ctx, out.stored, append([]serving.Follower{p.caches, migration, policy}, aggregated.Followers(registrar)...)...)
	defer reloads.Stop()
	// CRD objects feed the same reloads as the schema files; started
	// before the server, so that its first /readyz finds them synced.
	defer background.New(p.crds.Feed(crd.FeedConfig{Store: p.store, Reloads: reloads})).Start(ctx)()
	var ready atomic.Bool
	handler := newServer(cfg, out, p, ready.Load, log)
	// No request reaches specd's routes unauthenticated or unauthorized.
	chained := out.chain.Wrap(handler, out.chain.Decider(p.authz.Authorizer()))
	running := httpserve.Start(httpserve.Config{Listener: out.listener, Handler: chained, TLS: out.tls.TLSConfig(), CloseWatches: handler.CloseWatches,
		Stopping: func() { ready.Store(false) }, Logger: log})
	ready.Store(true)
	log.Info("serving", "address", running.URL())
	if code, expires := out.chain.LoginLink().Code(); cfg.Console && code != "" {
		log.Info("console login link, for one login", "url", certs.LocalURL("https", out.listener.Addr())+console.Prefix+"#login="+code, "expires", expires.Format(time.RFC3339))
	}
	// The elected replica runs the background work; it stops (migration
	// progress kept, leadership resigned) before the storage closes.
	defer background.New(p.elected(cfg, out, migration, aggregator, registrar, log)).Start(ctx)()
	return running.Wait(ctx)
}

// elected is the background work that runs on the elected replica only.
// Aggregated, the host's controllers empty namespaces and publish the
// root CA, and registrar puts the APIServices back now and then.
func (p *parts) elected(cfg serveConfig, out outside, migration *migrate.Runner, aggregator *rbac.Aggregator, registrar *apiservices.Registrar, log *slog.Logger) background.Job {
	set := out.schemas
	collector := gc.New(p.store.Upkeep(), set.Registry, gc.Options{Logger: log.With("component", "gc"), Trigger: p.trigger, ForeignGroups: out.agg.ForeignGroups()})
	namespaces := namespace.NewController(namespace.ControllerConfig{Store: p.store, Upkeep: p.store.Upkeep(), Registry: set.Registry, Logger: log})
	controllers := controller.Job(controller.ServeConfig{Store: p.store, Reconciler: p.host, Registry: set.Registry, Workers: cfg.ReconcileWorkers, Logger: log})
	leading := leader.Config{Client: out.etcd, Key: leader.Key, ID: leader.ReplicaID(out.listener.Addr().String()), Logger: log}
	jobs := []background.Job{collector, p.deletes, migration, aggregator, p.crds.Elected(p.store), etcdcare.New(cfg.Etcd.Care(out.etcd, log)), controllers}
	jobs = append(jobs, out.agg.LocalNamespaces(namespaces.Elected(p.namespaces))...)
	if ca := out.tls.RootCA(); ca != nil {
		jobs = append(jobs, out.agg.LocalNamespaces(rootca.New(rootca.Config{Store: p.store, Registry: set.Registry, CA: ca, Logger: log}))...)
	}
	return leader.Jobs(leading, append(jobs, aggregated.RegistrarJobs(registrar, set.Registry)...)...)
}

// newServer is the API's handler on the parts, before the request chain.
func newServer(cfg serveConfig, out outside, p *parts, ready func() bool, log *slog.Logger) *server.Server {
	set := out.schemas
	var ui http.Handler // nil with --console=false
	if o := cfg.Chain.Authn.OIDC; cfg.Console {
		ui = console.Handler(console.Config{OIDC: console.OIDC{IssuerURL: o.IssuerURL, ClientID: o.ClientID}, Login: out.chain.LoginLink()})
	}
	return server.New(server.Config{
		Registry: set.Registry,
		Checks: []server.Check{{Name: "etcd", Check: etcdcare.Healthy(out.etcd)}, {Name: "schemas", Check: set.ReadyCheck, Informational: true},
			{Name: "rbac", Check: p.authz.Ready}, {Name: "crd-informer-synced", Check: p.crds.Ready}},
		PluginChecks:      p.host.ReadyChecks,
		Store:             p.store,
		Ready:             ready,
		Logger:            log,
		Version:           server.KubeVersion(build()),
		MinRequestTimeout: cfg.Chain.ServerMinRequestTimeout(),
		Profiling:         cfg.Profiling,
		Extra:             reviews.Groups(reviews.Config{Authorizer: out.chain.Decider(p.authz.Authorizer()), RuleResolver: p.authz.RBAC}),
		Console:           ui,
		Installed:         p.crds.Installed(p.store),
	})
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
