package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/internal/cliflag"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/aggregated"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/chain"
)

// serveConfig is everything `specd serve` is told on its command line.
type serveConfig struct {
	Schemas string
	DataDir string
	Listen  string
	// TLS is how the API is served: HTTPS with given or generated
	// certificates, or plain HTTP.
	TLS      certs.Flags
	Plugins  string
	LogLevel slog.Level
	// Disable names the groups ("G"), group versions ("G/V") and
	// resources ("G/V/R") not to serve; the core group is "api".
	Disable []string
	// NoWatch (--watch=false): reload the schemas on SIGHUP only, not
	// when their files change (serving).
	NoWatch bool
	// AllowBreaking lets a reload break clients or stored objects of beta
	// and stable versions (serving).
	AllowBreaking bool
	// NoCRDGate (--crd-gate=false): CRDs change as in kube (serving).
	NoCRDGate bool
	// ReconcileWorkers is how many objects of one resource its reconcile
	// plugin works on at once; 0 for the default (controller.ServeConfig).
	ReconcileWorkers int
	// MaxObjectBytes (--max-object-bytes) is the largest object a write
	// stores; 0 for objectLimit's default.
	MaxObjectBytes int64
	// EventTTL (--event-ttl) is how long an Event lives after its last
	// write; 0 keeps events.
	EventTTL time.Duration
	// Authorization is --authorization-mode: RBAC or AlwaysAllow.
	Authorization rbac.Mode
	// Profiling (--profiling) serves Go's profiles at /debug/pprof/.
	Profiling bool
	// Console (--console) serves the console's files at /console/.
	Console bool
	// Chain are the flags of authentication, audit and request limits.
	Chain chain.Flags
	// Encryption is --encryption-provider-config.
	Encryption encryption.Flag
	// Etcd are the flags of the etcd servers, or of the embedded etcd, and
	// of etcd's compaction, quota and checks.
	Etcd etcdcare.Flags
	// Aggregation are the flags of serving aggregated (--aggregated).
	Aggregation aggregated.Flags
}

// objectLimit is the largest object a write stores: --max-object-bytes;
// else, with the embedded etcd (whose max request size specd sets to fit
// it), the request body limit; else what an etcd at its default
// --max-request-bytes takes.
func (c serveConfig) objectLimit() int64 {
	switch {
	case c.MaxObjectBytes > 0:
		return c.MaxObjectBytes
	case len(c.Etcd.Servers) == 0:
		return server.DefaultMaxBodyBytes
	default:
		return etcdstorage.MaxValueBytes(etcdstorage.DefaultMaxRequestBytes)
	}
}

// ttl is the engine's TTL of each resource that expires: the events, with
// the events.k8s.io ones kept in the same storage.
func (c serveConfig) ttl() map[string]time.Duration {
	return map[string]time.Duration{"events": c.EventTTL}
}

func parseServeFlags(args []string, help io.Writer) (serveConfig, error) {
	var cfg serveConfig
	var logLevel string
	fs := flag.NewFlagSet("specd serve", flag.ContinueOnError)
	fs.StringVar(&cfg.Schemas, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.StringVar(&cfg.DataDir, "data-dir", "data", "directory for the embedded etcd's data and socket, made 0700")
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "HOST:PORT to serve the API on")
	cfg.Etcd.Register(fs)
	cfg.TLS.Register(fs)
	cfg.Authorization = rbac.ModeRBAC
	fs.Func("authorization-mode", "RBAC (the default) or AlwaysAllow (development only: every authenticated request is allowed)", cfg.Authorization.Set)
	cfg.Chain.Register(fs)
	cfg.Encryption.Register(fs)
	cfg.Aggregation.Register(fs)
	fs.StringVar(&cfg.Plugins, "plugins", "", "directory of plugin executables")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&cfg.Console, "console", true, "serve the console, a web page that uses the API with the user's own credentials, at /console/ (docs/console.md)")
	fs.BoolVar(&cfg.Profiling, "profiling", true, "serve Go's profiles at /debug/pprof/ to users authorized for that path (system:masters, or nonResourceURLs in a ClusterRole)")
	fs.Var((*cliflag.List)(&cfg.Disable), "disable", "a group (G), group version (G/V) or resource (G/V/R) not to serve, the core group named api (api/v1/events); repeatable or comma-separated")
	watch := fs.Bool("watch", true, "reload the schemas when files under --schemas change (SIGHUP always reloads)")
	fs.BoolVar(&cfg.AllowBreaking, "allow-breaking", false, "let schema reloads break clients or stored objects of beta and stable versions")
	crdGate := fs.Bool("crd-gate", true, "refuse CRD updates that break clients or stored objects unless annotated specd.io/allow-breaking; false takes them as kube-apiserver does")
	fs.IntVar(&cfg.ReconcileWorkers, "reconcile-workers", 0, "objects of one resource its reconcile plugin works on at once (default 2)")
	fs.Int64Var(&cfg.MaxObjectBytes, "max-object-bytes", 0, "largest object a write stores, in bytes; an external etcd needs --max-request-bytes of at least this plus 16384 "+
		"(default 3145728 with the embedded etcd, 1556480 with --etcd-servers)")
	fs.DurationVar(&cfg.EventTTL, "event-ttl", time.Hour, "how long an event lives after its last write, through an etcd lease; 0 keeps events")
	if err := cliflag.Parse(fs, args, help); err != nil {
		return cfg, err
	}
	if cfg.EventTTL < 0 {
		return cfg, fmt.Errorf("--event-ttl %v: must not be negative", cfg.EventTTL)
	}
	if cfg.MaxObjectBytes < 0 {
		return cfg, fmt.Errorf("--max-object-bytes %d: must not be negative", cfg.MaxObjectBytes)
	}
	if cfg.ReconcileWorkers < 0 {
		return cfg, fmt.Errorf("--reconcile-workers %d: must be at least 1", cfg.ReconcileWorkers)
	}
	cfg.NoWatch, cfg.NoCRDGate = !*watch, !*crdGate
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if cfg.Schemas == "" {
		return cfg, errors.New("--schemas is required")
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return cfg, fmt.Errorf("--listen %q: %w", cfg.Listen, err)
	}
	if err := cfg.Etcd.Check(); err != nil {
		return cfg, err
	}
	if err := cfg.Chain.Check(); err != nil {
		return cfg, err
	}
	if err := cfg.TLS.Check(cfg.Listen); err != nil {
		return cfg, err
	}
	if err := cfg.Aggregation.Check(cfg.TLS.Insecure, cfg.TLS.CertFile); err != nil {
		return cfg, err
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level: %w", err)
	}
	for _, d := range cfg.Disable {
		if parts := strings.Split(d, "/"); len(parts) > 3 || slices.Contains(parts, "") {
			return cfg, fmt.Errorf("--disable %q: want a group (G), a group version (G/V) or a resource (G/V/R); the core group is api", d)
		}
	}
	return cfg, nil
}
