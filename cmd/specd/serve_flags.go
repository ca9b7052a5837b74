package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	kflag "k8s.io/component-base/cli/flag"

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
	// Watch (--watch) reloads the schemas when their files change, not
	// on SIGHUP only (serving).
	Watch bool
	// AllowBreaking lets a reload break clients or stored objects of beta
	// and stable versions (serving).
	AllowBreaking bool
	// CRDGate (--crd-gate): CRDs change as in kube when false (serving.Config.NoCRDGate).
	CRDGate bool
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

// serveCommand is `specd serve`; its logs go to stderr.
func serveCommand(stderr io.Writer) *cobra.Command {
	var cfg serveConfig
	cmd := &cobra.Command{
		Use:   "serve --schemas DIR",
		Short: "Serve the APIs of a schema directory, stored in an embedded etcd or an external one",
		Long: "specd serve serves the APIs the OpenAPI files of --schemas declare, with the plugins of --plugins,\n" +
			"stored in the embedded etcd of --data-dir, or in the etcd of --etcd-servers. Without --tls-cert-file\n" +
			"it generates a CA, a serving certificate and an admin kubeconfig into --data-dir.",
		Example: `  # the example schemas and plugins, as make run serves them
  specd serve --schemas examples/schemas --plugins bin/plugins
  export KUBECONFIG=data/admin.kubeconfig

  # on every address, the serving certificate also naming the machine's LAN address
  specd serve --schemas schemas --listen 0.0.0.0:8443 --tls-sans 192.168.1.20,specd.lan

  # replicas on an external etcd
  specd serve --schemas schemas --etcd-servers https://etcd-0:2379 --etcd-cafile ca.crt`,
		Args: cliflag.NoArgs,
		RunE: cliflag.RunE(func(cmd *cobra.Command, _ []string) error {
			if err := cfg.complete(); err != nil {
				return cliflag.Usage(err)
			}
			return runServe(cmd.Context(), cfg, stderr)
		}),
	}
	cliflag.Sections(cmd, serveFlags(&cfg))
	_ = cmd.MarkFlagDirname("schemas") // the flags are defined just above
	_ = cmd.MarkFlagDirname("plugins")
	_ = cmd.MarkFlagDirname("data-dir")
	cliflag.Values(cmd, "log-level", "debug", "info", "warn", "error")
	cliflag.Values(cmd, "authorization-mode", string(rbac.ModeRBAC), string(rbac.ModeAlwaysAllow))
	return cmd
}

// serveFlags defines the flags of specd serve on cfg, in the sets
// kube-apiserver's help groups its own in, under the same names where
// specd has one of kube's flags.
func serveFlags(cfg *serveConfig) *kflag.NamedFlagSets {
	var fss kflag.NamedFlagSets
	fs := fss.FlagSet("schema")
	fs.StringVar(&cfg.Schemas, "schemas", "", "directory of OpenAPI schema files (required)")
	fs.BoolVar(&cfg.Watch, "watch", true, "reload the schemas when files under --schemas change (SIGHUP always reloads)")
	fs.BoolVar(&cfg.AllowBreaking, "allow-breaking", false, "let schema reloads break clients or stored objects of beta and stable versions")
	fs.BoolVar(&cfg.CRDGate, "crd-gate", true, "refuse CRD updates that break clients or stored objects unless annotated specd.io/allow-breaking; false takes them as kube-apiserver does")
	fs.Var((*cliflag.List)(&cfg.Disable), "disable", "a group (G), group version (G/V) or resource (G/V/R) not to serve, the core group named api (api/v1/events); repeatable or comma-separated")
	fs = fss.FlagSet("etcd")
	fs.StringVar(&cfg.DataDir, "data-dir", "data", "directory for the embedded etcd's data and socket, made 0700")
	cfg.Etcd.Register(fs)
	cfg.Encryption.Register(fs)
	fs.Int64Var(&cfg.MaxObjectBytes, "max-object-bytes", 0, "largest object a write stores, in bytes; an external etcd needs --max-request-bytes of at least this plus 16384 "+
		"(default 3145728 with the embedded etcd, 1556480 with --etcd-servers)")
	fs = fss.FlagSet("secure serving")
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "HOST:PORT to serve the API on")
	generic, authn := fss.FlagSet("generic"), fss.FlagSet("authentication")
	cfg.TLS.Register(fs, authn)
	cfg.Chain.Register(generic, authn, fss.FlagSet("auditing"))
	cfg.Authorization = rbac.ModeRBAC
	fss.FlagSet("authorization").Func("authorization-mode", "the `mode` of authorization: RBAC (the default) or AlwaysAllow (development only: every authenticated request is allowed)", cfg.Authorization.Set)
	fs = fss.FlagSet("plugin")
	fs.StringVar(&cfg.Plugins, "plugins", "", "directory of plugin executables")
	fs.IntVar(&cfg.ReconcileWorkers, "reconcile-workers", 0, "objects of one resource its reconcile plugin works on at once (default 2)")
	cfg.Aggregation.Register(fss.FlagSet("aggregation"))
	fs = fss.FlagSet("features")
	fs.BoolVar(&cfg.Console, "console", true, "serve the console, a web page that uses the API with the user's own credentials, at /console/ (docs/console.md)")
	fs.BoolVar(&cfg.Profiling, "profiling", true, "serve Go's profiles at /debug/pprof/ to users authorized for that path (system:masters, or nonResourceURLs in a ClusterRole)")
	fss.FlagSet("logs").Var((*cliflag.Level)(&cfg.LogLevel), "log-level", "the `level` to log at: debug, info, warn or error")
	fss.FlagSet("misc").DurationVar(&cfg.EventTTL, "event-ttl", time.Hour, "how long an event lives after its last write, through an etcd lease; 0 keeps events")
	return &fss
}

// complete says what is wrong with the flags, as parsed into c.
func (c serveConfig) complete() error {
	switch {
	case c.EventTTL < 0:
		return fmt.Errorf("--event-ttl %v: must not be negative", c.EventTTL)
	case c.MaxObjectBytes < 0:
		return fmt.Errorf("--max-object-bytes %d: must not be negative", c.MaxObjectBytes)
	case c.ReconcileWorkers < 0:
		return fmt.Errorf("--reconcile-workers %d: must be at least 1", c.ReconcileWorkers)
	case c.Schemas == "":
		return errors.New("--schemas is required")
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("--listen %q: %w", c.Listen, err)
	}
	for _, check := range []func() error{c.Etcd.Check, c.Chain.Check, func() error { return c.TLS.Check(c.Listen) },
		func() error { return c.Aggregation.Check(c.TLS.Insecure, c.TLS.CertFile) }} {
		if err := check(); err != nil {
			return err
		}
	}
	for _, d := range c.Disable {
		if parts := strings.Split(d, "/"); len(parts) > 3 || slices.Contains(parts, "") {
			return fmt.Errorf("--disable %q: want a group (G), a group version (G/V) or a resource (G/V/R); the core group is api", d)
		}
	}
	return nil
}
