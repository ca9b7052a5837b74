package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/engine/storage"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/version"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/schemas/serving"
	"github.com/specd-io/specd/server"
)

// serveConfig is everything `specd serve` is told on its command line.
type serveConfig struct {
	Schemas     string
	DataDir     string
	Listen      string
	EtcdServers []string
	Plugins     string
	LogLevel    slog.Level
	// Disable names the groups ("G") and group versions ("G/V") not to
	// serve.
	Disable []string
	// NoWatch (--watch=false): reload the schemas on SIGHUP only, not
	// when their files change (schemas/serving).
	NoWatch bool
	// AllowBreaking lets a reload break clients or stored objects of beta
	// and stable versions (schemas/serving).
	AllowBreaking bool
	// ReconcileWorkers is how many objects of one resource its reconcile
	// plugin works on at once; 0 for the default (controller.ElectedConfig).
	ReconcileWorkers int
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func parseServeFlags(args []string, stderr io.Writer) (serveConfig, error) {
	var cfg serveConfig
	var etcdServers, logLevel string
	fs := flag.NewFlagSet("specd serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Schemas, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.StringVar(&cfg.DataDir, "data-dir", "data", "directory for the embedded etcd's data")
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "HOST:PORT to serve the API on")
	fs.StringVar(&etcdServers, "etcd-servers", "", "comma-separated etcd URLs; without it specd starts an embedded etcd")
	fs.StringVar(&cfg.Plugins, "plugins", "", "directory of plugin executables")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.Var((*listFlag)(&cfg.Disable), "disable", "a group (G) or group version (G/V) not to serve; repeatable or comma-separated")
	watch := fs.Bool("watch", true, "reload the schemas when files under --schemas change (SIGHUP always reloads)")
	fs.BoolVar(&cfg.AllowBreaking, "allow-breaking", false, "let schema reloads break clients or stored objects of beta and stable versions")
	fs.IntVar(&cfg.ReconcileWorkers, "reconcile-workers", 0, "objects of one resource its reconcile plugin works on at once (default 2)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.ReconcileWorkers < 0 {
		return cfg, fmt.Errorf("--reconcile-workers %d: must be at least 1", cfg.ReconcileWorkers)
	}
	cfg.NoWatch = !*watch
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if cfg.Schemas == "" {
		return cfg, errors.New("--schemas is required")
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return cfg, fmt.Errorf("--listen %q: %w", cfg.Listen, err)
	}
	for _, u := range strings.Split(etcdServers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.EtcdServers = append(cfg.EtcdServers, u)
		}
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level: %w", err)
	}
	for _, d := range cfg.Disable {
		if g, v, _ := strings.Cut(d, "/"); g == "" || strings.Contains(v, "/") || strings.HasSuffix(d, "/") {
			return cfg, fmt.Errorf("--disable %q: want a group (G) or a group version (G/V)", d)
		}
	}
	return cfg, nil
}

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
	tightenGC()
	if err := serve(ctx, cfg, log); err != nil {
		fmt.Fprintf(stderr, "specd serve: %v\n", err)
		return 1
	}
	return 0
}

// serve runs until ctx ends. Schemas are loaded before anything starts, so a
// broken schema directory stops specd with every problem listed.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	// Every hook binding must name a plugin of --plugins (Host.CheckBindings);
	// plugins start on first use.
	callbacks := &plugins.LateCallbacks{}
	host, err := openPlugins(cfg, callbacks, log)
	if err != nil {
		return err
	}
	defer host.Close()
	// Schemas and their conversion rules are loaded (and checked) before
	// anything starts; reloads swap them while specd serves
	// (schemas/serving). A SIGHUP or a change of a schema file is a reload
	// request from here on, kept until reloads are served: a SIGHUP while
	// specd starts must not end it.
	schemaSet, err := serving.New(ctx, serving.Config{Dir: cfg.Schemas, Disable: cfg.Disable, AllowBreaking: cfg.AllowBreaking,
		Watch: !cfg.NoWatch, Logger: log, CheckBindings: host.CheckBindings})
	if err != nil {
		return err
	}
	defer schemaSet.Close()
	registry := schemaSet.Registry()
	log.Info("schemas loaded", "dir", cfg.Schemas, "groups", len(registry.Groups()))

	storage, etcdClient, closeStorage, err := openStorage(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStorage()
	// One watch cache per resource, fed by one etcd watch each, started
	// on the resource's first use; closed before the etcd client (the
	// deferred calls run in reverse).
	caches := watchcache.New(storage, watchcache.Config{Logger: log})
	defer caches.Close()

	var ready atomic.Bool
	// The garbage collector runs a pass at once, after deletes and
	// periodically.
	trigger := gc.NewTrigger()
	// A reload ends the caches of the resources it changes.
	reloadCaches := watchcache.NewServed(caches, engine.CacheKeyOf(""))
	store := engine.NewStore(storage, engine.Options{Logger: log, Cache: reloadCaches, OnDelete: trigger.Pull, Converters: schemaSet.ConverterFor,
		Admission: host})
	// Plugins call back to the store from here on: the one late binding
	// (plugins.LateCallbacks says why).
	callbacks.Bind(controller.NewClient(store, schemaSet.Registry))
	collector := gc.New(store, schemaSet.Registry, gc.Options{Logger: log.With("component", "gc"), Trigger: trigger})
	// Objects stored before a storage version change are rewritten in the
	// background.
	migration := migrate.NewRunner(ctx, store, registry, log)
	// Every replica runs the background work; it stops (migration
	// progress kept) before the storage closes.
	defer background.New(collector, migration).Start(ctx)()
	handler := server.New(server.Config{
		Registry:   schemaSet.Registry,
		Checks:     []server.Check{{Name: "schemas", Check: schemaSet.ReadyCheck, Informational: true}},
		MoreChecks: pluginChecks(host),
		Store:      store,
		Ready:      ready.Load,
		Logger:     log,
		Version:    version.Info{GitVersion: specdVersion},
	})

	listener, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	httpServer := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Open watches never end by themselves: Shutdown ends them.
	httpServer.RegisterOnShutdown(handler.CloseWatches)
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()
	ready.Store(true)
	log.Info("serving", "address", "http://"+listener.Addr().String())
	// The watch caches, then the storage migration, follow each reload.
	stored := storedObjects{store: store, timeout: storedReadTimeout}
	defer schemaSet.Serve(ctx, stored, reloadCaches, migration).Stop()
	defer startControllers(ctx, controller.ElectedConfig{Client: etcdClient, Address: cfg.Listen, Store: store,
		Reconciler: host, Registry: schemaSet.Registry, Workers: cfg.ReconcileWorkers, Logger: log})()

	select {
	case err := <-served:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	ready.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The HTTP server goes first, then the etcd client, then etcd: an etcd
	// that still has clients takes seconds to close.
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	return nil
}

// openStorage connects to the etcd cluster named by --etcd-servers, or starts
// an embedded one. Both go through the same client and Storage.
func openStorage(ctx context.Context, cfg serveConfig, log *slog.Logger) (storage.Storage, *clientv3.Client, func(), error) {
	endpoints := cfg.EtcdServers
	stopEmbedded := func() {}
	if len(endpoints) == 0 {
		embedded, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: cfg.DataDir, Logger: log})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("embedded etcd: %w", err)
		}
		endpoints = embedded.Endpoints()
		stopEmbedded = func() {
			if err := embedded.Close(); err != nil {
				log.Warn("embedded etcd close", "err", err)
			}
		}
		log.Info("embedded etcd started", "data-dir", cfg.DataDir, "endpoints", endpoints)
	}
	client, err := etcdstorage.NewClient(ctx, endpoints)
	if err != nil {
		stopEmbedded()
		return nil, nil, nil, fmt.Errorf("etcd %v: %w", endpoints, err)
	}
	closeAll := func() {
		if err := client.Close(); err != nil {
			log.Warn("etcd client close", "err", err)
		}
		stopEmbedded()
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
